// A threshold or a measurement setting as the lab's check definition
// declares it (labs/<slug>/check/index.js, read at build time), for prose
// about the checks:
//   <Threshold lab="01" gate="health-p50" />          →  0.5 × t
//   <Threshold lab="01" gate="health-p50" withOp />   →  below 0.5 × t
//   <CheckSetting lab="02" name="rounds" />           →  8   (its settings)
// A name that does not exist fails the build instead of printing a stale number.
import React from 'react';
import { useLab } from '../../lib/workbook';
import { gateOf, opWords, thresholdWithUnit } from '../../lib/gates';

function useNamedLab(id, tag) {
  const lab = useLab(id);
  if (!lab) throw new Error(`${tag} names lab "${id}", which is not in labs/labs.json.`);
  return lab;
}

export default function Threshold({ lab: labId, gate: id, withOp = false }) {
  const tag = `<Threshold lab="${labId}" gate="${id}">`;
  const gate = gateOf(useNamedLab(labId, tag), id, tag);
  return (
    <>
      {withOp && `${opWords(gate)} `}
      <strong className="workbook-threshold">{thresholdWithUnit(gate)}</strong>
    </>
  );
}

export function CheckSetting({ lab: labId, name }) {
  const tag = `<CheckSetting lab="${labId}" name="${name}">`;
  const lab = useNamedLab(labId, tag);
  if (!Object.prototype.hasOwnProperty.call(lab.settings, name)) {
    throw new Error(
      `${tag}: ${lab.check.path} has no setting "${name}" (it has ${Object.keys(lab.settings).join(', ') || 'none'}): update the page that names it.`,
    );
  }
  const value = lab.settings[name];
  return typeof value === 'number' ? value.toLocaleString('en-GB') : String(value);
}
