import type { StylesheetJson } from 'cytoscape';

/** Ten colours apart enough to tell types by (Tableau 10); an entity without a type is grey. */
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#17becf'];
export const UNTYPED_COLOUR = '#9aa0a6';

/** A type's colour, the same on every page load (a hash of its name, not the order types appear in). */
export function colourOfType(type: string | null): string {
  if (!type) return UNTYPED_COLOUR;
  let hash = 0;
  for (const char of type.toLowerCase()) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

/** How ended and superseded facts look, apart from live ones (the legend repeats it). */
// (Dark enough for the legend's text on white: ended 4.7:1, superseded 5.2:1.)
export const FACT_LOOK = {
  live: { colour: '#495057', line: 'solid' },
  ended: { colour: '#6c757d', line: 'dashed' },
  superseded: { colour: '#c2410c', line: 'dotted' },
} as const;

export const graphStyle: StylesheetJson = [
  {
    selector: 'node',
    style: {
      'background-color': 'data(colour)',
      label: 'data(name)',
      'font-size': 11,
      'text-valign': 'bottom',
      'text-margin-y': 4,
      'text-wrap': 'ellipsis',
      'text-max-width': '140px',
      width: 22,
      height: 22,
    },
  },
  // The entities opened (their every fact loaded) are ringed; the one in the middle more so.
  { selector: 'node.expanded', style: { 'border-width': 2, 'border-color': '#212529' } },
  { selector: 'node.centre', style: { 'border-width': 4, width: 30, height: 30, 'font-weight': 'bold' } },
  // The entity the keyboard is on: a halo in the focus ring's colour.
  { selector: 'node.focused', style: { 'underlay-color': '#1971c2', 'underlay-opacity': 0.35, 'underlay-padding': 8, 'underlay-shape': 'ellipse', 'font-weight': 'bold' } },
  {
    selector: 'edge',
    style: {
      label: 'data(relation)',
      'font-size': 9,
      'text-rotation': 'autorotate',
      'text-background-color': '#ffffff',
      'text-background-opacity': 0.8,
      'curve-style': 'bezier',
      'target-arrow-shape': 'triangle',
      width: 1.5,
      'line-color': FACT_LOOK.live.colour,
      'target-arrow-color': FACT_LOOK.live.colour,
    },
  },
  ...(['ended', 'superseded'] as const).map((status) => ({
    selector: `edge.${status}`,
    style: {
      'line-style': FACT_LOOK[status].line,
      'line-color': FACT_LOOK[status].colour,
      'target-arrow-color': FACT_LOOK[status].colour,
      color: FACT_LOOK[status].colour,
    },
  })),
];
