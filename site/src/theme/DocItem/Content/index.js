// Lab pages: the README as written, then the lab panel.
import React from 'react';
import Content from '@theme-original/DocItem/Content';
import LabPanel from '../../../components/LabPanel';
import { useLabOfDoc } from '../../lab-doc';

export default function ContentWrapper(props) {
  const lab = useLabOfDoc();
  return (
    <>
      <Content {...props} />
      {lab && <LabPanel lab={lab} />}
    </>
  );
}
