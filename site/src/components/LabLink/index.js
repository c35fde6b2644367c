// A link to a lab's page by its id ("01"), with the lab's title from
// scripts/lib/labs.js; plain text while the lab has no walkthrough yet.
import React from 'react';
import Link from '@docusaurus/Link';
import { useLab } from '../../lib/workbook';

export default function LabLink({ lab: id, children }) {
  const lab = useLab(id);
  if (!lab) throw new Error(`<LabLink lab="${id}">: there is no such lab in scripts/lib/labs.js.`);
  const text = children || `Lab ${lab.id} · ${lab.title}`;
  return lab.hasReadme ? <Link to={lab.permalink}>{text}</Link> : <span>{text}</span>;
}
