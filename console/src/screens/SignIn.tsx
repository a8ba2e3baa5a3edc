import { Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { FormEvent, useState } from 'react';
import { call, loci, Me, setToken } from '../api';
import { ErrorNote } from '../ui';

/** Signs in with the login route; the token lives in this tab's sessionStorage only. */
export function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { access_token } = await call(loci.POST('/v1/auth/login', { body: { email, password } }));
      setToken(access_token);
      onSignedIn(await call(loci.GET('/v1/me')));
    } catch (err) {
      setToken(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={400} component="main">
        <form onSubmit={(e) => void submit(e)} aria-label="Sign in">
          <Stack>
            <Title order={1} size="h2">
              Sign in to Loci
            </Title>
            <TextInput label="Email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
            <PasswordInput label="Password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
            <ErrorNote error={error} />
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
