// Verifies a JWT against an issuer's published keys (its discovery document's jwks_uri) with
// jose, independently of cubd: the harness's own check that the provider's and mint.mjs's
// tokens are what they claim.
//
// Usage: node verify.mjs --issuer URL [--audience A] TOKEN
// Prints {"header": ..., "payload": ...} as JSON and exits 0, or prints jose's error code and
// message on stderr and exits 1.
import { parseArgs } from 'node:util';

import { createRemoteJWKSet, jwtVerify } from 'jose';

const { values, positionals } = parseArgs({
  options: { issuer: { type: 'string' }, audience: { type: 'string' } },
  allowPositionals: true,
});
if (!values.issuer || positionals.length !== 1) {
  console.error('usage: node verify.mjs --issuer URL [--audience A] TOKEN');
  process.exit(2);
}
try {
  const discovery = await (await fetch(`${values.issuer}/.well-known/openid-configuration`)).json();
  const keys = createRemoteJWKSet(new URL(discovery.jwks_uri));
  const { payload, protectedHeader } = await jwtVerify(positionals[0], keys, {
    issuer: values.issuer,
    ...(values.audience ? { audience: values.audience } : {}),
  });
  console.log(JSON.stringify({ header: protectedHeader, payload }));
} catch (err) {
  console.error(`${err.code ?? 'ERROR'}: ${err.message}`);
  process.exit(1);
}
