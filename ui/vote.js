// Whether the viewer may vote on a ChangeOrder in one Space, and if not, why, so that the
// Review page shows the reason instead of a button that fails or a vote that does not count.
//   - The role: AttestationService/Approve with DryRun answers with the API's own refusal
//     (no approver role, a service account or the server administrator).
//   - Authorship: the API records an author's vote but does not count it (docs/concepts.md,
//     "The authors of a change do not count"). An author is whoever wrote a revision of the
//     change in that Space: ListRevisions with AuthorID and the revision range DiffUnit gave.
//   - A vote already cast is no refusal (the latest vote of each person counts); it is shown.
import * as api from './api.js';

function quote(s) {
  return `'${String(s).replace(/'/g, '')}'`;
}

// The API's refusal of a vote by the viewer in `space`, or '' when it would record one.
// `skipped` lists what a vote would not cover (its reasons, as the API gives them).
export async function roleCheck(coRef, space) {
  try {
    const r = await api.call('AttestationService', 'Approve',
      {ChangeOrder: coRef, Spaces: [space], DryRun: true});
    const skipped = (r.Skipped || []).map((s) => `${s.Unit || s.Space}: ${s.Reason}`);
    if ((r.Attestations || []).length === 0) {
      return skipped.length ? `Nothing to vote on here: ${skipped.join('; ')}` :
        'Nothing to vote on here: the change covers no Unit of this Space';
    }
    return '';
  } catch (err) {
    if (err.httpStatus === 401) throw err;
    return err.message;
  }
}

// The revision of Unit `unit` in `space`, within the change's range (from, to], that the
// viewer wrote, or null.
export async function authored(space, unit, from, to, userId) {
  const r = await api.call('UnitService', 'ListRevisions', {Space: space, Unit: unit, Limit: 1,
    Options: {Where: `AuthorID = ${quote(userId)} AND RevisionNum > ${Number(from) || 0}` +
      ` AND RevisionNum <= ${Number(to) || 0}`}});
  return (r.Revisions || [])[0] || null;
}

// The viewer's votes on the ChangeOrder in the Space, oldest first (the last one counts).
export async function myVotes(coId, spaceId, userId) {
  const r = await api.call('AttestationService', 'ListAttestations', {Limit: 50,
    Options: {Where: `ChangeOrderID = ${quote(coId)} AND SpaceID = ${quote(spaceId)}` +
      ` AND UserID = ${quote(userId)}`}});
  return r.Attestations || [];
}

// The attestation gates that do not hold over `space`, as ExplainChangeOrder reports them.
export function gateWaits(explain, space) {
  const out = [];
  for (const s of (explain && explain.Stages) || []) {
    for (const w of s.Waits || []) if (w.Kind === 'Attestation' && w.Space === space) out.push(w);
  }
  return out;
}

// Whom those gates still wait for, by name (NeedsFrom, which leaves out authors and those
// whose approval already counts).
export function needsFrom(explain, space) {
  return [...new Set(gateWaits(explain, space).flatMap((w) => w.NeedsFrom || []))];
}
