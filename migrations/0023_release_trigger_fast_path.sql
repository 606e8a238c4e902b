-- The releases trigger's cheap check (issue 16: recording 1,000 deliveries spent most of its
-- time here). Before, every UPDATE turned the old and the new row into JSON and compared them
-- key by key, 13 KB of signed provenance included. Now the new row, with the columns that may
-- change put back to their old values, is compared with the old row as one row value (each
-- column by its type's own equality); only when that differs are the changed columns looked up
-- and named, as before. Every rule stays as migrations/0021 wrote it. A column added to
-- releases later is covered without listing it here; its type needs an equality operator
-- (jsonb, not json), or every UPDATE of releases fails loudly.
CREATE OR REPLACE FUNCTION cub_release_state_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text;
  kept releases;
BEGIN
  -- NEW with the mutable columns put back: equal to OLD unless another column changed.
  kept := NEW;
  kept.sync_status := OLD.sync_status;
  kept.health_status := OLD.health_status;
  kept.operation_state := OLD.operation_state;
  kept.status_message := OLD.status_message;
  kept.status_at := OLD.status_at;
  kept.location := OLD.location;
  kept.commit_id := OLD.commit_id;
  kept.delivery_state := OLD.delivery_state;
  kept.delivery_attempts := OLD.delivery_attempts;
  kept.delivery_error := OLD.delivery_error;
  kept.delivered_at := OLD.delivered_at;
  kept.next_delivery_at := OLD.next_delivery_at;
  IF kept IS DISTINCT FROM OLD THEN
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
