-- Delivery as a step of its own (lib/ops/delivery.h): a publish records its Releases Pending
-- and a Target gets them after, from whichever cubd claims the Target. The state only moves
-- forward: Pending -> Failed (again and again, with attempts counted) -> Delivered, and
-- Delivered is final. Releases recorded before this migration were delivered in their
-- publish's transaction: they read Delivered.
ALTER TABLE releases ADD COLUMN delivery_state text NOT NULL DEFAULT 'Delivered'
  CHECK (delivery_state IN ('Pending', 'Delivered', 'Failed'));
ALTER TABLE releases ALTER COLUMN delivery_state SET DEFAULT 'Pending';
ALTER TABLE releases ADD COLUMN delivery_attempts integer NOT NULL DEFAULT 0
  CHECK (delivery_attempts >= 0);
ALTER TABLE releases ADD COLUMN delivery_error text NOT NULL DEFAULT '';
ALTER TABLE releases ADD COLUMN delivered_at timestamptz;
ALTER TABLE releases ADD COLUMN next_delivery_at timestamptz;

-- Release numbers count per Space. Releases numbered per Target before may repeat a number
-- within their Space (a Space that changed Targets), and their numbers are signed, so they
-- stay as they are: the uniqueness covers the Releases numbered from now on, whose numbers
-- are above every older one of their Space (store::LockNextReleaseNum).
ALTER TABLE releases ADD COLUMN numbered_in_space boolean NOT NULL DEFAULT false;
ALTER TABLE releases ALTER COLUMN numbered_in_space SET DEFAULT true;
ALTER TABLE releases DROP CONSTRAINT releases_target_id_release_num_key;
CREATE UNIQUE INDEX releases_space_num ON releases(space_id, release_num) WHERE numbered_in_space;
CREATE INDEX releases_target ON releases(target_id);
-- What the delivery workers sweep.
CREATE INDEX releases_undelivered ON releases(target_id, published_at)
  WHERE delivery_state <> 'Delivered';

-- Of a Release, only the live status and the delivery change; the delivery only forward.
CREATE OR REPLACE FUNCTION cub_release_state_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text;
BEGIN
  SELECT string_agg(o.key, ', ' ORDER BY o.key) INTO changed
    FROM jsonb_each(to_jsonb(OLD)) o JOIN jsonb_each(to_jsonb(NEW)) n USING (key)
   WHERE o.key NOT IN ('sync_status', 'health_status', 'operation_state', 'status_message',
                       'status_at', 'location', 'commit_id', 'delivery_state',
                       'delivery_attempts', 'delivery_error', 'delivered_at', 'next_delivery_at')
     AND o.value IS DISTINCT FROM n.value;
  IF changed IS NOT NULL THEN
    RAISE EXCEPTION 'releases is append-only: UPDATE of % refused (only the live status and the delivery may change)', changed
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF (OLD.location <> '' OR OLD.commit_id <> '')
     AND (NEW.location, NEW.commit_id) IS DISTINCT FROM (OLD.location, OLD.commit_id) THEN
    RAISE EXCEPTION 'releases: release % was delivered already; its location and commit are written once', OLD.release_num
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF OLD.delivery_state = 'Delivered'
     AND (NEW.delivery_state, NEW.delivery_attempts, NEW.delivery_error, NEW.delivered_at,
          NEW.next_delivery_at, NEW.location, NEW.commit_id)
         IS DISTINCT FROM (OLD.delivery_state, OLD.delivery_attempts, OLD.delivery_error,
                           OLD.delivered_at, OLD.next_delivery_at, OLD.location,
                           OLD.commit_id) THEN
    RAISE EXCEPTION 'releases: release % is Delivered; its delivery is final', OLD.release_num
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.delivery_state = 'Pending' AND OLD.delivery_state <> 'Pending' THEN
    RAISE EXCEPTION 'releases: release % cannot go back to Pending from %', OLD.release_num,
      OLD.delivery_state USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.delivery_attempts < OLD.delivery_attempts THEN
    RAISE EXCEPTION 'releases: the delivery attempts of release % only grow', OLD.release_num
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.delivery_state <> 'Delivered'
     AND (NEW.location, NEW.commit_id) IS DISTINCT FROM (OLD.location, OLD.commit_id) THEN
    RAISE EXCEPTION 'releases: release % gets its location and commit when it is Delivered', OLD.release_num
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.delivery_state = 'Delivered' AND NEW.delivered_at IS NULL
     AND OLD.delivery_state <> 'Delivered' THEN
    RAISE EXCEPTION 'releases: release % is Delivered without a time', OLD.release_num
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;

-- The runtime's ways to record deliveries, many Releases per statement. SECURITY DEFINER: they
-- run as the owner, and the trigger above still checks what they change.

-- Records each Release Delivered with its location and commit; those Delivered already (by
-- another cubd) are left as they are. Returns the IDs it recorded.
CREATE FUNCTION cub_record_delivered(p_ids uuid[], p_locations text[], p_commits text[])
  RETURNS SETOF uuid LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF cardinality(p_ids) <> cardinality(p_locations)
     OR cardinality(p_ids) <> cardinality(p_commits) THEN
    RAISE EXCEPTION 'release delivery: % IDs, % locations, % commits', cardinality(p_ids),
      cardinality(p_locations), cardinality(p_commits) USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN QUERY
    UPDATE releases r
       SET delivery_state = 'Delivered', location = coalesce(v.location, ''),
           commit_id = coalesce(v.commit_id, ''), delivered_at = now(), next_delivery_at = NULL,
           delivery_error = '', delivery_attempts = r.delivery_attempts + 1
      FROM unnest(p_ids, p_locations, p_commits) AS v(id, location, commit_id)
     WHERE r.id = v.id AND r.delivery_state <> 'Delivered'
    RETURNING r.id;
END $$;

-- Records an attempt that failed with `p_error`: each Release not Delivered goes Failed, one
-- more attempt counted, due again after a backoff doubling from p_first_seconds per attempt up
-- to p_max_seconds. Returns what it recorded.
CREATE FUNCTION cub_record_delivery_failed(p_ids uuid[], p_error text, p_first_seconds float8,
                                           p_max_seconds float8)
  RETURNS TABLE (id uuid, attempts integer, next_at timestamptz)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
BEGIN
  IF p_first_seconds IS NULL OR p_first_seconds < 0 OR p_max_seconds IS NULL
     OR p_max_seconds < p_first_seconds THEN
    RAISE EXCEPTION 'release delivery: backoff from % to % seconds', p_first_seconds,
      p_max_seconds USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN QUERY
    UPDATE releases r
       SET delivery_state = 'Failed', delivery_attempts = r.delivery_attempts + 1,
           delivery_error = coalesce(p_error, ''),
           next_delivery_at = now() + make_interval(secs => least(p_max_seconds,
             p_first_seconds * power(2, least(r.delivery_attempts, 30))))
     WHERE r.id = ANY(p_ids) AND r.delivery_state <> 'Delivered'
    RETURNING r.id, r.delivery_attempts, r.next_delivery_at;
END $$;

-- The one-Release form of before, now recording Delivered as well. Writing another location
-- or commit for a Release Delivered already is refused by the trigger.
CREATE OR REPLACE FUNCTION cub_set_release_delivery(p_release_id uuid, p_location text,
                                                    p_commit text)
  RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  UPDATE releases SET location = coalesce(p_location, ''), commit_id = coalesce(p_commit, ''),
                      delivery_state = 'Delivered', delivered_at = coalesce(delivered_at, now()),
                      next_delivery_at = NULL, delivery_error = ''
   WHERE id = p_release_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'release delivery: no release %', p_release_id
      USING ERRCODE = 'no_data_found';
  END IF;
END $$;

REVOKE ALL ON FUNCTION cub_record_delivered(uuid[], text[], text[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION cub_record_delivery_failed(uuid[], text, float8, float8) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION cub_record_delivered(uuid[], text[], text[]) TO cub_runtime;
GRANT EXECUTE ON FUNCTION cub_record_delivery_failed(uuid[], text, float8, float8) TO cub_runtime;
