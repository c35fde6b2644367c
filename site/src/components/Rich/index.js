// Renders the parts that nextStep() and friends return: plain strings,
// {code} and {command} for commands and paths, {link, text} for places on
// the site (scripts/lib/wording.js describes them).
import React from 'react';
import Link from '@docusaurus/Link';

export default function Rich({ parts }) {
  return parts.map((part, i) => {
    if (typeof part === 'string') return <React.Fragment key={i}>{part}</React.Fragment>;
    if (part.code || part.command) return <code key={i}>{part.code || part.command}</code>;
    if (part.link) return <Link key={i} to={part.link}>{part.text}</Link>;
    return null;
  });
}
