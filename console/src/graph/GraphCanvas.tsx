import cytoscape, { Core, ElementDefinition } from 'cytoscape';
import { useEffect, useRef } from 'react';
import type { Drawing } from './neighbourhood';
import { colourOfType, graphStyle } from './style';

interface GraphCanvasProps {
  drawing: Drawing;
  expanded: ReadonlySet<string>;
  /** The entity the view centres on (the one searched for or clicked last). */
  centre: string | null;
  /** Facts drawn by their state (ended, superseded apart); off at an instant, where every drawn fact was true. */
  byState: boolean;
  onNodeClick: (entityId: string) => void;
  label: string;
  /** The entity the keyboard is on (GraphNodeList): ringed, and brought into view when it is outside. */
  focused: string | null;
  /** The keyboard is on the graph: the canvas shows the focus ring the hidden list cannot. */
  keyboardActive: boolean;
}

/** Beyond this many nodes a force-directed layout takes seconds on a laptop; rings by degree do not. */
const FORCE_LAYOUT_MAX_NODES = 300;

/** Below this zoom labels are too small to read: the view shows the centre's surroundings instead of everything. */
const READABLE_ZOOM = 0.7;

const nodeKey = (entityId: string) => `entity-${entityId}`;
const factKey = (factId: string) => `fact-${factId}`;

/**
 * The graph drawn by Cytoscape.js on a canvas (record 0075). React owns what is drawn; this
 * component brings the Cytoscape instance in line with it: removes what left, adds what came,
 * and lays out again only when elements were added, so an expansion keeps the rest in place.
 */
export function GraphCanvas({ drawing, expanded, centre, byState, onNodeClick, label, focused, keyboardActive }: GraphCanvasProps) {
  const container = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | null>(null);
  const clicked = useRef(onNodeClick);
  clicked.current = onNodeClick;

  useEffect(() => {
    const element = container.current!;
    const instance = cytoscape({ container: element, style: graphStyle, minZoom: 0.1, maxZoom: 4, boxSelectionEnabled: false });
    instance.on('tap', 'node', (event) => clicked.current(event.target.data('entityId')));
    // The browser test reads where a node is drawn to click it there.
    Object.assign(element, { cytoscape: instance });
    cy.current = instance;
    return () => {
      instance.destroy();
      cy.current = null;
    };
  }, []);

  useEffect(() => {
    const instance = cy.current;
    if (!instance) return;
    const wanted: ElementDefinition[] = [
      ...drawing.nodes.map((node) => ({ group: 'nodes' as const, data: { id: nodeKey(node.id), entityId: node.id, name: node.name, type: node.type, colour: colourOfType(node.type) } })),
      ...drawing.facts.map((fact) => ({
        group: 'edges' as const,
        data: { id: factKey(fact.fact_id), source: nodeKey(fact.source.entity_id), target: nodeKey(fact.target.entity_id), relation: fact.relation, status: fact.status },
      })),
    ];
    const ids = new Set(wanted.map((el) => el.data.id!));
    let added = 0;
    instance.batch(() => {
      instance.elements().filter((el) => !ids.has(el.id())).remove();
      const fresh = wanted.filter((el) => instance.getElementById(el.data.id!).empty());
      added = fresh.length;
      instance.add(fresh);
      instance.nodes().forEach((node) => {
        node.toggleClass('expanded', expanded.has(node.data('entityId')));
        node.toggleClass('centre', node.data('entityId') === centre);
      });
      instance.edges().forEach((edge) => {
        for (const status of ['ended', 'superseded']) edge.toggleClass(status, byState && edge.data('status') === status);
      });
    });
    if (added > 0) {
      const force = instance.nodes().length <= FORCE_LAYOUT_MAX_NODES;
      instance.layout(force ? { name: 'cose', animate: false, randomize: false } : { name: 'concentric', animate: false, minNodeSpacing: 4 }).run();
    }
    // The whole graph when its labels stay readable that way; else the centre entity at full size.
    instance.fit(undefined, 30);
    const middle = centre ? instance.getElementById(nodeKey(centre)) : instance.collection();
    if (middle.nonempty() && instance.zoom() < READABLE_ZOOM) {
      instance.zoom(1);
      instance.center(middle);
    }
  }, [drawing, expanded, centre, byState]);

  // Apart from the drawing's effect: moving the keyboard neither lays out nor re-fits the view.
  useEffect(() => {
    const instance = cy.current;
    if (!instance) return;
    instance.nodes().forEach((node) => {
      node.toggleClass('focused', node.data('entityId') === focused);
    });
    const node = focused ? instance.getElementById(nodeKey(focused)) : instance.collection();
    if (node.empty()) return;
    const { x, y } = node.renderedPosition();
    if (x < 0 || y < 0 || x > instance.width() || y > instance.height()) instance.center(node);
  }, [drawing, focused]);

  return (
    <div
      ref={container}
      role="img"
      aria-label={label}
      data-testid="graph-canvas"
      data-nodes={drawing.nodes.length}
      data-facts={drawing.facts.length}
      style={{
        height: 440,
        width: '100%',
        border: '1px solid var(--mantine-color-gray-3)',
        borderRadius: 4,
        outline: keyboardActive ? '2px solid var(--mantine-color-blue-8)' : undefined,
        outlineOffset: 2,
      }}
    />
  );
}
