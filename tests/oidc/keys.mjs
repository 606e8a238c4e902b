// Writes a private JWKS for provider.mjs: one RS256, one ES256 (P-256) and one EdDSA
// (Ed25519) signing key, each with a fresh kid.
//
// Usage: node keys.mjs FILE [--keep-old]
//   --keep-old  the keys already in FILE stay after the new ones: still published at the
//               jwks_uri (tokens they signed keep verifying) but no longer signing.
// Prints the new kids.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

import { exportJWK, generateKeyPair } from 'jose';

const { values, positionals } = parseArgs({
  options: { 'keep-old': { type: 'boolean', default: false } },
  allowPositionals: true,
});
if (positionals.length !== 1) {
  console.error('usage: node keys.mjs FILE [--keep-old]');
  process.exit(2);
}
const file = positionals[0];

async function signingKey(alg, options) {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...options });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `${alg.toLowerCase()}-${randomBytes(6).toString('hex')}`, alg, use: 'sig' };
}

const keys = [
  await signingKey('RS256', { modulusLength: 2048 }),
  await signingKey('ES256'),
  await signingKey('EdDSA', { crv: 'Ed25519' }),
];
if (values['keep-old'] && existsSync(file)) {
  keys.push(...JSON.parse(readFileSync(file, 'utf8')).keys);
}
// Whole file or nothing: the provider may re-read it at any moment.
writeFileSync(`${file}.tmp`, `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600 });
renameSync(`${file}.tmp`, file);
console.log(keys.slice(0, 3).map((k) => k.kid).join(' '));
