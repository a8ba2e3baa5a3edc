/**
 * SDK clients keyed by (base URL, API key): one per platform key, and one per tenant key for
 * tenants billed `own_key`, reused across calls (each holds a connection pool). The least
 * recently used is dropped past `max`, so many tenants' keys cannot grow it without bound.
 */
export class ClientCache<Client> {
  private readonly clients = new Map<string, Client>();

  constructor(
    private readonly create: (baseURL: string | undefined, apiKey: string) => Client,
    private readonly max = 32,
  ) {}

  get(baseURL: string | undefined, apiKey: string): Client {
    const key = `${baseURL ?? ''}\u0000${apiKey}`;
    let client = this.clients.get(key);
    if (client) {
      this.clients.delete(key); // re-inserted below: the Map's order is least recently used first
    } else {
      client = this.create(baseURL, apiKey);
    }
    this.clients.set(key, client);
    if (this.clients.size > this.max) this.clients.delete(this.clients.keys().next().value as string);
    return client;
  }
}
