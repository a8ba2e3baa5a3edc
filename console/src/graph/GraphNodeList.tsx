import { CSSProperties, KeyboardEvent, useId, useMemo } from 'react';
import { Drawing, factCounts, GraphNode, keyboardOrder } from './neighbourhood';

interface GraphNodeListProps {
  drawing: Drawing;
  centre: string | null;
  expanded: ReadonlySet<string>;
  /** The entity the keyboard is on (drawn ringed on the canvas), or null before it has moved. */
  focused: string | null;
  onFocusNode: (entityId: string) => void;
  onOpen: (entityId: string) => void;
  /** Whether the list has the keyboard's focus (the canvas shows a focus ring while it does). */
  onActive: (active: boolean) => void;
  describedBy: string;
}

/** Off screen, still in the keyboard's order and read by screen readers (the canvas shows where the focus is). */
const VISUALLY_HIDDEN: CSSProperties = { position: 'absolute', width: 1, height: 1, margin: -1, padding: 0, border: 0, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' };

/** What a screen reader says of an entity, and the line under the graph repeats. */
export function describeNode(node: GraphNode, facts: number, opened: boolean): string {
  return `${node.name}, ${node.type ?? 'no type'}, ${facts} ${facts === 1 ? 'fact' : 'facts'} drawn${opened ? ', opened' : ''}`;
}

/**
 * The graph's entities for the keyboard and assistive technology (record 0079): a listbox, one
 * stop of the Tab key, mirroring what the canvas draws. The arrow keys move between entities
 * (out from the centre, `keyboardOrder`), Home and End to the first and last, Enter or Space opens
 * the one focused (as a click on it does: its facts join the graph). The entity focused is the
 * listbox's active descendant, so a screen reader announces it as it changes.
 */
export function GraphNodeList({ drawing, centre, expanded, focused, onFocusNode, onOpen, onActive, describedBy }: GraphNodeListProps) {
  const id = useId();
  const order = useMemo(() => keyboardOrder(drawing, centre), [drawing, centre]);
  const counts = useMemo(() => factCounts(drawing), [drawing]);
  const at = order.findIndex((node) => node.id === focused);
  const optionId = (node: GraphNode) => `${id}-entity-${node.id}`;

  const onKeyDown = (event: KeyboardEvent) => {
    if (order.length === 0) return;
    const to = (index: number) => onFocusNode(order[Math.max(0, Math.min(order.length - 1, index))].id);
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowRight':
        to(at + 1);
        break;
      case 'ArrowUp':
      case 'ArrowLeft':
        to(at < 0 ? 0 : at - 1);
        break;
      case 'Home':
        to(0);
        break;
      case 'End':
        to(order.length - 1);
        break;
      case 'Enter':
      case ' ':
        if (at >= 0) onOpen(order[at].id);
        break;
      default:
        return;
    }
    // The page would scroll on the arrows and Space.
    event.preventDefault();
  };

  return (
    <ul
      role="listbox"
      tabIndex={0}
      aria-label="Entities in the graph"
      aria-describedby={describedBy}
      aria-activedescendant={at >= 0 ? optionId(order[at]) : undefined}
      onKeyDown={onKeyDown}
      onFocus={() => {
        // Arriving on the graph puts the keyboard on its centre (or the first entity).
        if (at < 0 && order.length > 0) onFocusNode(order[0].id);
        onActive(true);
      }}
      onBlur={() => onActive(false)}
      style={VISUALLY_HIDDEN}
      data-testid="graph-entities"
    >
      {order.map((node) => (
        <li key={node.id} id={optionId(node)} role="option" aria-selected={node.id === focused}>
          {describeNode(node, counts.get(node.id) ?? 0, expanded.has(node.id))}
        </li>
      ))}
    </ul>
  );
}
