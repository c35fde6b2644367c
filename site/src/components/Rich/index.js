// Renders the parts that nextStep() and friends return: plain strings,
// {code} for commands and paths, {link, text} for places on the site.
import React from 'react';
import Link from '@docusaurus/Link';

export default function Rich({ parts }) {
  return parts.map((part, i) => {
    if (typeof part === 'string') return <React.Fragment key={i}>{part}</React.Fragment>;
    if (part.code) return <code key={i}>{part.code}</code>;
    if (part.link) return <Link key={i} to={part.link}>{part.text}</Link>;
    return null;
  });
}
