import { Badge, Button, Card, ColorSwatch, Group, Slider, Stack, Text, Title } from '@mantine/core';
import { useEffect, useId, useMemo, useState } from 'react';
import type { Fact } from '../api';
import { changeInstants } from './as-of';
import { GraphCanvas } from './GraphCanvas';
import { describeNode, GraphNodeList } from './GraphNodeList';
import { drawnAt, emptyNeighbourhood, factCounts, Neighbourhood, withEntity } from './neighbourhood';
import { colourOfType, FACT_LOOK } from './style';

interface OpenedEntity {
  entity: { entity_id: string; name: string; type: string | null };
  facts: Fact[];
}

const day = (iso: string) => iso.slice(0, 10);

/**
 * The neighbourhood of the entities opened, as a graph: each entity opened (searched for, or
 * clicked in the graph) adds its facts and centres the view on it. A time control re-draws the
 * graph as of an instant, the way a question's `as_of` reads it; at its end, every fact in every
 * state, ended and superseded ones drawn apart.
 */
export function NeighbourhoodGraph({ opened, onOpen }: { opened: OpenedEntity | null; onOpen: (entityId: string) => void }) {
  const [neighbourhood, setNeighbourhood] = useState<Neighbourhood>(emptyNeighbourhood);
  // The instant drawn (one of the instants where something changed), or null for every state.
  const [asOf, setAsOf] = useState<string | null>(null);
  // The entity the keyboard is on, and whether the keyboard is on the graph at all.
  const [focused, setFocused] = useState<string | null>(null);
  const [keyboardActive, setKeyboardActive] = useState(false);
  const helpId = useId();

  useEffect(() => {
    if (opened) setNeighbourhood((current) => withEntity(current, { id: opened.entity.entity_id, name: opened.entity.name, type: opened.entity.type }, opened.facts));
  }, [opened]);

  const instants = useMemo(() => changeInstants(neighbourhood.facts.values()), [neighbourhood.facts]);
  const drawing = useMemo(() => drawnAt(neighbourhood, asOf === null ? null : new Date(asOf)), [neighbourhood, asOf]);
  const counts = useMemo(() => factCounts(drawing), [drawing]);
  const types = useMemo(() => [...new Set(drawing.nodes.map((node) => node.type))].sort((a, b) => (a ?? '').localeCompare(b ?? '')), [drawing]);

  if (neighbourhood.nodes.size === 0) return null;
  const caption =
    asOf === null
      ? `Every state: ${drawing.nodes.length} entities, ${drawing.facts.length} facts`
      : `As of ${day(asOf)}: ${drawing.nodes.length} entities, ${drawing.facts.length} facts true then`;
  const clear = () => {
    setNeighbourhood(emptyNeighbourhood);
    setAsOf(null);
    setFocused(null);
  };
  const centre = opened?.entity.entity_id ?? null;
  const focusedNode = drawing.nodes.find((node) => node.id === focused);

  return (
    <Card withBorder data-testid="graph">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={3} size="h4">
            Graph
          </Title>
          <Button size="xs" variant="subtle" onClick={clear}>
            Clear graph
          </Button>
        </Group>
        <Text size="sm" c="dimmed" id={helpId}>
          Click an entity to open it: its facts join the graph. By keyboard: Tab to the graph, the arrow keys move from entity to entity, Enter opens the one focused.
        </Text>
        <GraphNodeList
          drawing={drawing}
          centre={centre}
          expanded={neighbourhood.expanded}
          focused={focusedNode ? focused : null}
          onFocusNode={setFocused}
          onOpen={onOpen}
          onActive={setKeyboardActive}
          describedBy={helpId}
        />
        <GraphCanvas
          drawing={drawing}
          expanded={neighbourhood.expanded}
          centre={centre}
          byState={asOf === null}
          onNodeClick={onOpen}
          label={`Graph of the entities opened. ${caption}`}
          focused={focusedNode ? focused : null}
          keyboardActive={keyboardActive}
        />
        {/* For the eye: a screen reader hears the list's active entity already. */}
        {keyboardActive && focusedNode && (
          <Text size="sm" fw={500} aria-hidden="true" data-testid="graph-focus">
            {describeNode(focusedNode, counts.get(focusedNode.id) ?? 0, neighbourhood.expanded.has(focusedNode.id))}. Enter opens it.
          </Text>
        )}
        <Text size="sm" data-testid="graph-caption" aria-live="polite">
          {caption}
        </Text>
        {instants.length > 0 && (
          <Slider
            thumbLabel="As of"
            min={0}
            max={instants.length}
            step={1}
            value={asOf === null ? instants.length : Math.max(0, instants.indexOf(asOf))}
            onChange={(index) => setAsOf(index >= instants.length ? null : instants[index])}
            label={(index) => (index >= instants.length ? 'every state' : day(instants[index]))}
            data-testid="graph-time"
            // Room at both ends for the thumb's label ("every state"), so it stays inside the card.
            mx={40}
            mb="sm"
          />
        )}
        <Group gap="sm" data-testid="graph-legend">
          {types.map((type) => (
            <Group key={type ?? ''} gap={4}>
              <ColorSwatch color={colourOfType(type)} size={12} />
              <Text size="xs">{type ?? 'no type'}</Text>
            </Group>
          ))}
          {asOf === null &&
            (['ended', 'superseded'] as const).map((status) => (
              <Badge key={status} size="sm" variant="outline" color={FACT_LOOK[status].colour} style={{ borderStyle: FACT_LOOK[status].line }}>
                {status} fact
              </Badge>
            ))}
        </Group>
      </Stack>
    </Card>
  );
}
