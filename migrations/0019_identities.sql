-- Identities from OpenID providers (docs/concepts.md, "Identities").
--
-- user_identities: the personal user an issuer's subject is. A person is known by (issuer,
-- subject), never by a username or email the provider could let them change; one user has at
-- most one such identity. `groups_iat` is the `iat` of the token the user's groups were last
-- taken from, so a token older than that cannot bring back a group removed since.
CREATE TABLE user_identities (
  user_id uuid NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  issuer text NOT NULL,
  subject text NOT NULL,
  email text NOT NULL DEFAULT '',
  groups_iat timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject)
);

-- workload_identities: which CI workloads' tokens a service account accepts: tokens of
-- `issuer` for `audience` whose `sub` matches the glob `subject_pattern` ('*' matches any run
-- of characters) and whose claims equal every key/value of `claims` (a JSON object of
-- strings). Written by `cubd serviceaccount create`, as the owner.
CREATE TABLE workload_identities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  issuer text NOT NULL,
  audience text NOT NULL,
  subject_pattern text NOT NULL CHECK (subject_pattern <> ''),
  claims jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(claims) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX workload_identities_issuer ON workload_identities(issuer);

-- The runtime (cubd serve) creates personal users on first login and keeps their email and
-- groups current: it may change those two columns of an identity, never which user or
-- subject it is. It only reads workload mappings: which CI tokens act as a service account
-- is the owner's decision.
GRANT SELECT, INSERT ON user_identities TO cub_runtime;
REVOKE UPDATE, DELETE, TRUNCATE ON user_identities FROM cub_runtime;
GRANT UPDATE (email, groups_iat) ON user_identities TO cub_runtime;
GRANT SELECT ON workload_identities TO cub_runtime;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON workload_identities FROM cub_runtime;
