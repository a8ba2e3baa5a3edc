import { AppShell, Burger, Button, Group, NavLink, Text, type TextProps, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { call, currentToken, loci, Me, setToken, whenUnauthorized } from './api';
import { addressIn, DocumentAddress } from './document/address';
import { AdminScreen } from './screens/Admin';
import { AskScreen } from './screens/Ask';
import { DocumentScreen } from './screens/Document';
import { DocumentsScreen } from './screens/Documents';
import { GraphScreen } from './screens/Graph';
import { MemoriesScreen } from './screens/Memories';
import { OperatorScreen } from './screens/Operator';
import { SignIn } from './screens/SignIn';
import { UploadScreen } from './screens/Upload';

type Screen = 'ask' | 'upload' | 'documents' | 'graph' | 'memories' | 'admin' | 'operator';
const TENANT_SCREENS: { id: Screen; label: string; admin?: boolean }[] = [
  { id: 'ask', label: 'Ask' },
  { id: 'upload', label: 'Upload' },
  { id: 'documents', label: 'Documents' },
  { id: 'graph', label: 'Entities and facts' },
  { id: 'memories', label: 'Memories (gb)' },
  { id: 'admin', label: 'Users, keys and usage', admin: true },
];

export function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(Boolean(currentToken()));
  const [screen, setScreen] = useState<Screen>('ask');
  const [opened, { toggle, close }] = useDisclosure();
  // A document's page, open over the screen it was opened from (kept, hidden: an answer stays).
  // `byLink`: opened by a link on this page, so Back returns to it; else by the address it loaded with.
  const [docPage, setDocPage] = useState<{ address: DocumentAddress; byLink: boolean } | null>(() => {
    const address = addressIn(location.hash);
    return address && { address, byLink: false };
  });
  const scrollBefore = useRef(0);

  const withoutAddress = () => location.pathname + location.search;
  const signOut = () => {
    setToken(null);
    setMe(null);
    setDocPage(null);
    history.replaceState(null, '', withoutAddress());
  };
  // Sources and document names are links to `#/documents/…`: the address says what is open.
  useEffect(() => {
    const follow = () => {
      const address = addressIn(location.hash);
      setDocPage((was) => {
        if (!was && address) scrollBefore.current = window.scrollY;
        return address && { address, byLink: was?.byLink ?? true };
      });
    };
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  // Opened: from the top (a cited passage scrolls itself into view); closed: where the screen was.
  const isOpen = docPage !== null;
  useLayoutEffect(() => {
    // (A statement: Chromium's scrollTo returns a promise, which React would take for a cleanup.)
    window.scrollTo(0, isOpen ? 0 : scrollBefore.current);
  }, [isOpen]);
  const closeDocument = () => {
    if (docPage?.byLink) return history.back();
    history.replaceState(null, '', withoutAddress());
    setDocPage(null);
  };
  useEffect(() => {
    whenUnauthorized(signOut);
    if (!currentToken()) return;
    call(loci.GET('/v1/me'))
      .then((who) => adopt(who))
      .catch(signOut)
      .finally(() => setChecking(false));
  }, []);
  const adopt = (who: Me) => {
    setMe(who);
    setScreen(who.role === 'operator' ? 'operator' : 'ask');
  };

  if (checking) return null;
  if (!me) return <SignIn onSignedIn={adopt} />;

  // Documents are a tenant's: an operator has none to open.
  const showDocument = docPage !== null && me.role !== 'operator';
  const screens = me.role === 'operator' ? [{ id: 'operator' as Screen, label: 'Tenants and limits' }] : TENANT_SCREENS.filter((s) => !s.admin || me.role === 'admin');
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            <Title order={1} size="h3">
              Loci Console
            </Title>
          </Group>
          <Group wrap="nowrap" gap="xs">
            <Identity who={me} visibleFrom="sm" />
            <Button variant="default" size="xs" onClick={signOut}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Screens">
        {/* At phone width the header has no room: who is signed in heads the menu instead. */}
        <Identity who={me} hiddenFrom="sm" px="sm" pb="xs" />
        {screens.map((s) => (
          <NavLink
            key={s.id}
            component="button"
            label={s.label}
            active={screen === s.id}
            aria-current={screen === s.id ? 'page' : undefined}
            onClick={() => {
              setScreen(s.id);
              close();
              if (docPage) {
                history.pushState(null, '', withoutAddress());
                setDocPage(null);
              }
            }}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        {showDocument && (
          <DocumentScreen
            key={`${docPage.address.documentId}/${docPage.address.chunkId}`}
            address={docPage.address}
            backLabel={screen === 'ask' && docPage.byLink ? 'Back to the answer' : `Back to ${screens.find((s) => s.id === screen)?.label ?? 'the console'}`}
            onBack={closeDocument}
          />
        )}
        <div hidden={showDocument}>
          {screen === 'ask' && <AskScreen onUpload={() => setScreen('upload')} />}
          {screen === 'upload' && <UploadScreen />}
          {screen === 'documents' && <DocumentsScreen />}
          {screen === 'graph' && <GraphScreen />}
          {screen === 'memories' && <MemoriesScreen />}
          {screen === 'admin' && <AdminScreen />}
          {screen === 'operator' && <OperatorScreen />}
        </div>
      </AppShell.Main>
    </AppShell>
  );
}

/** Who is signed in: email, tenant (or "operator") and role, so nobody acts in the wrong tenant. */
// (`who`, not `me`: `me` is a Mantine style prop, margin-inline-end.)
function Identity({ who, ...box }: { who: Me } & TextProps) {
  const where = who.tenant_name ?? (who.role === 'operator' ? 'all tenants' : '');
  return (
    <Text size="sm" c="dimmed" data-testid="identity" {...box}>
      {who.email} · {where} · {who.role}
    </Text>
  );
}
