-- ChangeOrders of type Invoke: the Invocation, its bound arguments and the Unit selection are
-- fixed at creation, so every Space receives the same change however late it is promoted.
ALTER TABLE change_orders ADD COLUMN invocation text NOT NULL DEFAULT '';
ALTER TABLE change_orders ADD COLUMN function_name text NOT NULL DEFAULT '';
ALTER TABLE change_orders ADD COLUMN function_args text[] NOT NULL DEFAULT '{}';
ALTER TABLE change_orders ADD COLUMN where_unit text NOT NULL DEFAULT '';
