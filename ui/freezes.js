// The freezes in force over one Space. A freeze lives in some Space and covers Spaces by its
// scope (docs/concepts.md, "Freezes"): no workflow named, every Space; a workflow, the Spaces
// its Stages' WhereSpace select (only the Stages named, if any), the workflow read as it is
// now. ListFreezes("*") gives those the viewer can see with InForce; the coverage is asked of
// ListSpaces with each Stage's WhereSpace narrowed to this Space.
import * as api from './api.js';

// Whether `freeze` covers Space `spaceId`: true, false, or a string saying why it cannot be
// told (the workflow is not visible to the viewer), as the API words it.
async function covers(freeze, spaceId) {
  if (!freeze.ChangeWorkflow) return true;
  const [wfSpace, wfName] = freeze.ChangeWorkflow.split('/');
  let wf;
  try {
    wf = await api.call('ChangeWorkflowService', 'GetChangeWorkflow',
      {Space: wfSpace, ChangeWorkflow: wfName});
  } catch (err) {
    if (err.httpStatus === 401) throw err;
    return err.message;
  }
  const named = new Set(freeze.Stages || []);
  const stages = (wf.Stages || []).filter((s) => named.size === 0 || named.has(s.Name));
  for (const s of stages) {
    const where = `${s.WhereSpace ? `(${s.WhereSpace}) AND ` : ''}SpaceID = '${spaceId}'`;
    const r = await api.call('SpaceService', 'ListSpaces', {Limit: 1, Options: {Where: where}});
    if ((r.Spaces || []).length) return true;
  }
  return false;
}

// The freezes in force over the Space, each {freeze, unsure} (unsure: why coverage could not
// be told; such a freeze is listed rather than hidden).
export async function freezesInForce(spaceId) {
  const r = await api.call('FreezeService', 'ListFreezes', {Space: '*'});
  const inForce = (r.Freezes || []).filter((f) => f.InForce);
  const checked = await Promise.all(inForce.map(async (f) => ({freeze: f,
    covered: await covers(f, spaceId)})));
  return checked.filter((c) => c.covered !== false)
    .map((c) => ({freeze: c.freeze, unsure: typeof c.covered === 'string' ? c.covered : ''}));
}
