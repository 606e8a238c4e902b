// A static file server for tests: serves the files of DIR over plain HTTP on 127.0.0.1.
//
// Usage: node static_http.mjs DIR [PORT]   (PORT 0 or absent: any free port)
// Prints "listening PORT" on stdout once it accepts connections, then serves until killed.
// GET /PATH answers the file DIR/PATH (200, Content-Type application/json for .json and for
// files without an extension, else application/octet-stream), or 404. Paths that leave DIR
// are 404. Every request is counted by its path; GET /__count?path=/PATH answers that count
// as text, without counting itself. The files are read at every request, so a test changes
// what is served by rewriting them.
// Slow providers: when the file DIR/PATH.delay_ms exists, its number is how many milliseconds
// the server waits before answering GET /PATH (the request is counted on arrival).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const [dir, portArg] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node static_http.mjs DIR [PORT]');
  process.exit(2);
}
const root = path.resolve(dir);
const counts = new Map();

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname === '/__count') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(String(counts.get(url.searchParams.get('path')) ?? 0));
    return;
  }
  counts.set(url.pathname, (counts.get(url.pathname) ?? 0) + 1);
  const file = path.resolve(root, '.' + decodeURIComponent(url.pathname));
  if (req.method !== 'GET' || !file.startsWith(root + path.sep)) {
    res.writeHead(404).end();
    return;
  }
  try {
    const delay = Number(await readFile(file + '.delay_ms', 'utf8').catch(() => '0'));
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    const body = await readFile(file);
    const ext = path.extname(file);
    const type = ext === '.json' || ext === '' ? 'application/json' : 'application/octet-stream';
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});

server.listen(Number(portArg ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
