import { Button, Group, NumberInput, Select } from '@mantine/core';
import { FormEvent, useState } from 'react';
import { call, loci } from '../api';
import { ErrorNote, useAction } from '../ui';

interface ActiveKey {
  id: string;
  name: string;
  prefix: string;
}

/**
 * Changes a live key's own rate (PATCH /v1/api-keys/{id}) without replacing the key: an
 * integration that needs more, or one to be held back, keeps its secret. Empty sends null, the
 * tenant's rate.
 */
export function KeyRateForm({ keys, onChanged }: { keys: ActiveKey[]; onChanged: () => void }) {
  const [keyId, setKeyId] = useState<string | null>(null);
  const [rate, setRate] = useState<string | number>('');
  const action = useAction();
  const save = (e: FormEvent) => {
    e.preventDefault();
    if (!keyId) return;
    void action.run(async () => {
      const requests_per_minute = rate === '' ? null : Number(rate);
      await call(loci.PATCH('/v1/api-keys/{keyId}', { params: { path: { keyId } }, body: { requests_per_minute } }));
      setRate('');
      onChanged();
    });
  };
  if (keys.length === 0) return null;
  return (
    <form onSubmit={save} aria-label="Change a key's rate">
      <Group align="end" my="sm">
        <Select label="Key" placeholder="Choose a key" data={keys.map((k) => ({ value: k.id, label: `${k.name} (${k.prefix})` }))} value={keyId} onChange={setKeyId} allowDeselect={false} required />
        <NumberInput label="Its requests a minute" description="Empty = the tenant's rate" min={1} allowNegative={false} allowDecimal={false} value={rate} onChange={setRate} w={190} />
        <Button type="submit" variant="light" loading={action.busy} disabled={!keyId}>
          Save rate
        </Button>
      </Group>
      <ErrorNote error={action.error} />
    </form>
  );
}
