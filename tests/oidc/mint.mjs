// Prints a JWT with the given claims, signed by the test provider's current key (from its keys
// file) or by a freshly generated stranger key: tests use it for tokens the provider would
// never issue (expired, wrong audience, not yet valid, signed by someone else).
//
// Usage: node mint.mjs --keys FILE [--alg RS256|ES256|EdDSA|none] [--stranger] [--kid KID]
//          [--issuer URL] [--exp-in SECONDS] [CLAIMS_JSON]
//   --keys      the provider's keys file; the first key of --alg signs (default RS256)
//   --stranger  sign with a new key instead; its kid is the provider's key's kid unless --kid
//               says otherwise (so the verifier finds a key, and the signature fails)
//   --kid       the kid to put in the header
//   --alg none  an unsigned token (header alg "none")
//   --issuer    iss (default: $OIDC_ISSUER)
//   --exp-in    exp = now + SECONDS (negative for an expired token; default 600)
// Defaults, each overridden by CLAIMS_JSON: iss, aud "cub-cli", iat now, exp as above.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { SignJWT, UnsecuredJWT, generateKeyPair, importJWK } from 'jose';

// `--exp-in -60` as well as `--exp-in=-60` (parseArgs alone takes -60 for an option).
const argv = process.argv.slice(2);
for (let i = 0; i + 1 < argv.length; i++) {
  if (argv[i] === '--exp-in' && /^-\d+$/.test(argv[i + 1])) argv.splice(i, 2, `--exp-in=${argv[i + 1]}`);
}
const { values, positionals } = parseArgs({
  args: argv,
  options: {
    keys: { type: 'string' },
    alg: { type: 'string', default: 'RS256' },
    stranger: { type: 'boolean', default: false },
    kid: { type: 'string' },
    issuer: { type: 'string' },
    'exp-in': { type: 'string', default: '600' },
  },
  allowPositionals: true,
});

function fail(message) {
  console.error(`mint.mjs: ${message}`);
  process.exit(2);
}

let claims = {};
if (positionals.length > 1) fail('give the claims as one JSON argument');
if (positionals.length === 1) {
  try {
    claims = JSON.parse(positionals[0]);
  } catch (err) {
    fail(`the claims are not JSON: ${err.message}`);
  }
}
const now = Math.floor(Date.now() / 1000);
const expIn = Number(values['exp-in']);
if (!Number.isInteger(expIn)) fail(`--exp-in must be a whole number of seconds, not '${values['exp-in']}'`);
const payload = {
  ...(values.issuer ?? process.env.OIDC_ISSUER ? { iss: values.issuer ?? process.env.OIDC_ISSUER } : {}),
  aud: 'cub-cli',
  iat: now,
  exp: now + expIn,
  ...claims,
};

const { alg } = values;
if (alg === 'none') {
  process.stdout.write(`${new UnsecuredJWT(payload).encode()}\n`);
  process.exit(0);
}
if (!values.keys) fail('--keys FILE is required (the provider\'s keys file)');
const jwk = JSON.parse(readFileSync(values.keys, 'utf8')).keys.find((k) => k.alg === alg);
if (!jwk) fail(`the keys file ${values.keys} has no ${alg} key`);

let key;
if (values.stranger) {
  const options = alg === 'EdDSA' ? { crv: 'Ed25519' } : {};
  key = (await generateKeyPair(alg, options)).privateKey;
} else {
  key = await importJWK(jwk, alg);
}
const jwt = await new SignJWT(payload)
  .setProtectedHeader({ alg, typ: 'JWT', kid: values.kid ?? jwk.kid })
  .sign(key);
process.stdout.write(`${jwt}\n`);
