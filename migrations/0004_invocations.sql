-- Invocations: a saved function call with declared parameters, run later with values.
CREATE TABLE invocations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  space_id uuid NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
  slug text NOT NULL,
  toolchain_type text NOT NULL,
  function_name text NOT NULL,
  arguments jsonb NOT NULL DEFAULT '[]',   -- ["ghcr.io/acme/acme", "template:{{ .Params.tag }}"]
  parameters jsonb NOT NULL DEFAULT '[]',  -- [{"Name": "tag", "Type": "string", "Required": true}]
  created_by uuid REFERENCES users(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (space_id, slug)
);
