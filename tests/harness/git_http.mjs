// A Git smart-HTTP server for tests: basic auth in front of `git http-backend` (CGI), on
// 127.0.0.1, serving the repositories under ROOT.
//
// Usage: node git_http.mjs ROOT USER PASSWORD [PORT]   (PORT 0 or absent: any free port)
// Prints "listening PORT" on stdout once it accepts connections, then serves until killed.
// Every request must carry "Authorization: Basic base64(USER:PASSWORD)", else 401 with a
// WWW-Authenticate challenge (what makes a Git client send its credentials). An authenticated
// request runs `git http-backend` with GIT_PROJECT_ROOT=ROOT, GIT_HTTP_EXPORT_ALL=1 and
// REMOTE_USER=USER (with a REMOTE_USER, http-backend allows pushes), the request body on its
// stdin, and relays its CGI answer (Status header, other headers, body). Requests are counted:
// GET /__count answers "<authenticated> <refused>" without auth.
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import path from 'node:path';

const [root, user, password, portArg] = process.argv.slice(2);
if (!root || !user || password === undefined) {
  console.error('usage: node git_http.mjs ROOT USER PASSWORD [PORT]');
  process.exit(2);
}
const expected = 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
let authenticated = 0;
let refused = 0;

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname === '/__count') {
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end(`${authenticated} ${refused}`);
    return;
  }
  if (req.headers.authorization !== expected) {
    refused++;
    req.resume();
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="cub-test"' }).end('unauthorized\n');
    return;
  }
  authenticated++;
  const env = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: path.resolve(root),
    GIT_HTTP_EXPORT_ALL: '1',
    REMOTE_USER: user,
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    REQUEST_METHOD: req.method,
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    GATEWAY_INTERFACE: 'CGI/1.1',
    SERVER_PROTOCOL: 'HTTP/1.1',
  };
  // Without CONTENT_LENGTH http-backend reads the body to EOF (libgit2 sends pushes chunked).
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  if (req.headers['git-protocol']) env.GIT_PROTOCOL = req.headers['git-protocol'];
  const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  req.pipe(cgi.stdin);
  cgi.stdin.on('error', () => {});
  let head = Buffer.alloc(0);
  let headersDone = false;
  cgi.stdout.on('data', (chunk) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    let end = head.indexOf('\r\n\r\n');
    let sep = 4;
    if (end < 0) {
      end = head.indexOf('\n\n');
      sep = 2;
    }
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    const headers = {};
    for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = parseInt(value, 10);
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    res.write(head.subarray(end + sep));
  });
  cgi.on('close', (code) => {
    if (!headersDone) res.writeHead(500).end(`git http-backend exited ${code}\n`);
    else res.end();
  });
});

server.listen(Number(portArg ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
