-- Promotion records' envelopes compressed with lz4 rather than pglz (issue 19), as 0029 did
-- for the records a Release carries.
--
-- An envelope is a few KB of JSON, most of it the base64 of the signed statement: PostgreSQL
-- tries to compress every row it inserts, and pglz gains little on base64 for the time it
-- spends. A whole-Stage promote writes one record per Space (10,000 at fleet scale). Rows
-- written before keep pglz; PostgreSQL reads either.
--
-- A server built without lz4 refuses the clause with feature_not_supported; it then keeps
-- pglz, which is slower but no less correct, rather than failing the migration.
DO $$
BEGIN
  ALTER TABLE promotion_records ALTER COLUMN envelope SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'this PostgreSQL has no lz4: promotion records keep pglz compression';
END
$$;
