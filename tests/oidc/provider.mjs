// The real OpenID provider cub's tests log in against: oidc-provider (npm, pinned in
// package-lock.json) on 127.0.0.1:PORT, issuer http://127.0.0.1:PORT, with two clients:
//
//   cub-cli  public native client (no secret): device_code, authorization_code with PKCE S256
//            on http://127.0.0.1:<any port>/callback (RFC 8252 loopback) and on cubd's
//            http://127.0.0.1:<any port>/ui/oidc/callback (the dashboard), refresh_token.
//            Its ID tokens carry preferred_username, email and groups.
//   cub-ci   confidential client (secret read from a file): client_credentials. Its access
//            tokens are JWTs for audience `cubd` (resource urn:cub:aud:cubd; ask for another
//            audience X with resource=urn:cub:aud:X), sub `cub-ci`, plus the claims of the
//            CI claims file (default {"repository": "acme/app"}), re-read at every token.
//
// Usage: node provider.mjs --port P --accounts FILE --keys FILE --ci-secret-file FILE
//          [--ci-claims FILE] [--id-token-ttl S] [--access-token-ttl S]
//          [--refresh-token-ttl S] [--id-token-alg RS256|ES256|EdDSA]
//          [--access-token-alg RS256|ES256|EdDSA]
// Each flag may also come from the environment: OIDC_PORT, OIDC_ACCOUNTS, OIDC_KEYS, ...
// (upper case, dashes as underscores, OIDC_ prefix).
//
// Accounts file, re-read at every findAccount (so a test edits groups between logins):
//   {"alice": {"email": "alice@example.com", "groups": ["g1"]}}
// The account id is the username: the login form's "login" field, `sub` and
// preferred_username. Any password is accepted (this is a test provider).
//
// Keys file: a private JWKS ({"keys": [...]}, see keys.mjs). The first key of an algorithm
// signs; all are published at the jwks_uri. SIGHUP re-reads it (key rotation): a new provider
// instance with the new keys takes over the same port; sessions, grants and refresh tokens
// live in oidc-provider's process-wide memory store and survive the swap.
//
// Prints "oidc-provider listening on http://127.0.0.1:P" once it accepts connections.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';

import Provider from 'oidc-provider';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string' },
    accounts: { type: 'string' },
    keys: { type: 'string' },
    'ci-secret-file': { type: 'string' },
    'ci-claims': { type: 'string' },
    'id-token-ttl': { type: 'string' },
    'access-token-ttl': { type: 'string' },
    'refresh-token-ttl': { type: 'string' },
    'id-token-alg': { type: 'string' },
    'access-token-alg': { type: 'string' },
  },
});

function option(name, fallback) {
  const env = `OIDC_${name.toUpperCase().replaceAll('-', '_')}`;
  const value = args[name] ?? process.env[env] ?? fallback;
  if (value === undefined) {
    console.error(`provider.mjs: --${name} (or ${env}) is required`);
    process.exit(2);
  }
  return value;
}

function seconds(name, fallback) {
  const text = option(name, String(fallback));
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`provider.mjs: --${name} must be a positive number of seconds, not '${text}'`);
    process.exit(2);
  }
  return n;
}

const port = Number(option('port'));
const accountsFile = option('accounts');
const keysFile = option('keys');
const ciSecretFile = option('ci-secret-file');
const ciClaimsFile = option('ci-claims', '');
const idTokenTtl = seconds('id-token-ttl', 3600);
const accessTokenTtl = seconds('access-token-ttl', 3600);
const refreshTokenTtl = seconds('refresh-token-ttl', 86400);
const idTokenAlg = option('id-token-alg', 'RS256');
const accessTokenAlg = option('access-token-alg', 'RS256');
const issuer = `http://127.0.0.1:${port}`;

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

function ciClaims() {
  if (!ciClaimsFile) return { repository: 'acme/app' };
  return readJson(ciClaimsFile);
}

async function findAccount(_ctx, id) {
  const account = readJson(accountsFile)[id];
  if (!account) return undefined;
  return {
    accountId: id,
    async claims() {
      return {
        sub: id,
        preferred_username: id,
        name: account.name ?? id,
        email: account.email ?? `${id}@example.com`,
        email_verified: true,
        groups: account.groups ?? [],
      };
    },
  };
}

// Resource indicators name the audience of a JWT access token: urn:cub:aud:AUDIENCE.
const RESOURCE_PREFIX = 'urn:cub:aud:';

function configuration() {
  return {
    clients: [
      {
        client_id: 'cub-cli',
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: [
          'urn:ietf:params:oauth:grant-type:device_code',
          'authorization_code',
          'refresh_token',
        ],
        response_types: ['code'],
        // Native client: any port of this loopback URI matches (RFC 8252 section 7.3).
        // The dashboard's log-in comes back to cubd's /ui/oidc/callback, also on any port.
        redirect_uris: ['http://127.0.0.1/callback', 'http://127.0.0.1/ui/oidc/callback'],
        id_token_signed_response_alg: idTokenAlg,
      },
      {
        client_id: 'cub-ci',
        client_secret: readFileSync(ciSecretFile, 'utf8').trim(),
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
    ],
    jwks: readJson(keysFile),
    findAccount,
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'name'],
      email: ['email', 'email_verified'],
      groups: ['groups'],
    },
    scopes: ['openid', 'offline_access', 'profile', 'email', 'groups'],
    // The ID token carries every claim of the granted scopes, not only sub: cubd reads the
    // username, email and groups from it.
    conformIdTokenClaims: false,
    // cub-cli gets a refresh token from every code or device grant, asked offline_access or not.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    extraTokenClaims: async (_ctx, token) =>
      token.clientId === 'cub-ci' && token.kind === 'ClientCredentials' ? ciClaims() : undefined,
    features: {
      devInteractions: { enabled: true },
      deviceFlow: { enabled: true },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, client, oneOf) =>
          oneOf ?? (client.clientId === 'cub-ci' ? `${RESOURCE_PREFIX}cubd` : undefined),
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource, client) => {
          if (client.clientId !== 'cub-ci' || !resource.startsWith(RESOURCE_PREFIX)) {
            throw new Provider.errors.InvalidTarget(
              `resource must be ${RESOURCE_PREFIX}AUDIENCE, asked by cub-ci`);
          }
          return {
            audience: resource.slice(RESOURCE_PREFIX.length),
            scope: '',
            accessTokenTTL: accessTokenTtl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: accessTokenAlg } },
          };
        },
      },
    },
    ttl: {
      IdToken: idTokenTtl,
      AccessToken: accessTokenTtl,
      ClientCredentials: accessTokenTtl,
      RefreshToken: refreshTokenTtl,
      DeviceCode: 600,
      Interaction: 3600,
      Session: 86400,
      Grant: 86400,
    },
    cookies: { keys: ['cub-test-provider-cookie-key'] },
  };
}

function newProvider() {
  const provider = new Provider(issuer, configuration());
  provider.on('server_error', (_ctx, err) => console.error('provider server_error:', err));
  provider.on('grant.error', (_ctx, err) => console.error('provider grant.error:', err.message,
    err.error_description ?? ''));
  return provider.callback();
}

let handler = newProvider();
const server = http.createServer((req, res) => handler(req, res));

process.on('SIGHUP', () => {
  try {
    handler = newProvider();
    const kids = readJson(keysFile).keys.map((k) => k.kid).join(' ');
    console.log(`oidc-provider reloaded its keys: ${kids}`);
  } catch (err) {
    console.error(`oidc-provider: reload failed, keeping the old keys: ${err.message}`);
  }
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => server.close(() => process.exit(0)));
}

server.listen(port, '127.0.0.1', () => {
  console.log(`oidc-provider listening on ${issuer}`);
});
