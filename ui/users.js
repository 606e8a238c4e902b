// People's names for the user IDs the API records (ChangeOrder.CreatedBy holds a user ID).
// The API has no call that names another user for a normal viewer (WhoAmI names only the
// caller; ListTokens names others only for server admins), so names are learnt from the
// records that carry both an ID and a name: the session, Revisions (AuthorID, Author),
// Attestations (UserID, User), promotion failures and overrides (UserID, User).
import * as api from './api.js';

const names = new Map();  // user ID -> username
const asked = new Map();  // user ID -> the lookup under way or done (asked once per page load)

// Remembers the pairs `records` carry under the field names `idKey` and `nameKey`.
export function learn(records, idKey = 'UserID', nameKey = 'User') {
  for (const r of records || []) {
    if (r && r[idKey] && r[nameKey]) names.set(r[idKey], r[nameKey]);
  }
}

export function learnSession(who) {
  if (who && who.User) names.set(who.User.UserID, who.User.Username);
}

// The name of user `id` if known, else null.
export function known(id) {
  return names.get(id) || null;
}

// The name of user `id`, looked up in the records the viewer can read when not known yet:
// one vote of theirs (ListAttestations), or a revision they wrote of one of the first Units of
// `space` (ListRevisions). Resolves to null when none names them.
export function nameOf(id, space) {
  if (!id || known(id)) return Promise.resolve(known(id));
  if (!asked.has(id)) asked.set(id, lookUp(id, space));
  return asked.get(id);
}

async function lookUp(id, space) {
  const quoted = `'${id.replace(/'/g, '')}'`;
  try {
    const votes = await api.call('AttestationService', 'ListAttestations',
      {Options: {Where: `UserID = ${quoted}`}, Limit: 1});
    learn(votes.Attestations);
    if (known(id) || !space) return known(id);
    const units = await api.call('UnitService', 'ListUnits', {Space: space, Limit: 5});
    for (const u of units.Units || []) {
      const revs = await api.call('UnitService', 'ListRevisions',
        {Space: space, Unit: u.Slug, Options: {Where: `AuthorID = ${quoted}`}, Limit: 1});
      learn(revs.Revisions, 'AuthorID', 'Author');
      if (known(id)) break;
    }
  } catch {
    // Not being able to name someone is no failure of the page: the ID stays shown.
  }
  return known(id);
}

// "alice", or "user 8c0f… (no name the API shows)" (the page puts the whole ID in a title).
export function label(id) {
  const name = known(id);
  return name || (id ? `user ${id.slice(0, 8)}… (no name the API shows)` : 'unknown');
}
