// A threshold as the check module defines it (the GATES export of
// test/checks/<lab>.js, read at build time), for prose about the checks:
//   <Threshold lab="01" gate="healthP50" />  →  0.5
//   <CheckSetting lab="02" name="rounds" />  →  8   (its LOAD export)
// A name that no longer exists fails the build instead of printing a stale number.
import React from 'react';
import { useLab } from '../../lib/workbook';

function useCheckExport(labId, exported, name) {
  const lab = useLab(labId);
  if (!lab) throw new Error(`lab "${labId}" is not in scripts/lib/labs.js.`);
  const values = exported === 'GATES' ? lab.gates : lab.load;
  if (!(name in values)) {
    throw new Error(`test/checks/${lab.slug}.js has no ${exported}.${name} (it has ${Object.keys(values).join(', ')}): update the page that names it.`);
  }
  return values[name];
}

function Value({ value, unit }) {
  return (
    <strong className="workbook-threshold">
      {value.toLocaleString('en-GB')}
      {unit}
    </strong>
  );
}

export default function Threshold({ lab, gate, unit = '' }) {
  return <Value value={useCheckExport(lab, 'GATES', gate)} unit={unit} />;
}

export function CheckSetting({ lab, name }) {
  return useCheckExport(lab, 'LOAD', name).toLocaleString('en-GB');
}
