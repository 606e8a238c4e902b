// Blocking a ChangeOrder and lifting the block (UpdateChangeOrder Block / Unblock); what a
// block holds back is enforced by lib/ops/block_gate.h.
//
// A block goes with an abort: Block needs the ChangeOrder aborted already or an AbortedReason
// in the same request. Unblock lifts the block only; the ChangeOrder stays aborted. The caller
// has checked the editor role on the base (the same as for an abort).
#ifndef CUB_LIB_OPS_CHANGE_ORDER_BLOCK_H_
#define CUB_LIB_OPS_CHANGE_ORDER_BLOCK_H_

#include "absl/status/status.h"
#include "cub/v1/changeorder.pb.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/principal.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// INVALID_ARGUMENT or FAILED_PRECONDITION, naming the field, when `req` asks for a block or
// unblock it cannot have (both; Block without an abort; Unblock of one not blocked; clearing
// the abort of a blocked one). Checked before anything is written.
absl::Status CheckBlockRequest(const ResolvedChangeOrder& rco,
                               const v1::UpdateChangeOrderRequest& req);

// After the request's other changes (its AbortedReason) are written: blocks (recording the
// content the ChangeOrder brought) or unblocks, with its event. No-op for neither.
absl::Status ApplyBlockRequest(store::Tx& tx, const Principal& p, const ResolvedChangeOrder& rco,
                               const v1::UpdateChangeOrderRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_CHANGE_ORDER_BLOCK_H_
