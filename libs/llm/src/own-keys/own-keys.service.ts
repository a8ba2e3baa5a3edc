import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import { TenantRow, TenantsRepository } from '@loci/db';
import { CallContext, InferenceKind } from '../gateway/call-context';
import { SecretBox } from './secret-box';

export const OWN_KEY_PROVIDERS = ['anthropic', 'openai'] as const;
export type OwnKeyProvider = (typeof OWN_KEY_PROVIDERS)[number];

/**
 * Tenants billed `own_key` bring a provider key: it is stored sealed (AES-256-GCM, bound to
 * the tenant), opened only to build the call context of that tenant's requests.
 */
@Injectable()
export class OwnKeysService {
  private readonly box: SecretBox;

  constructor(
    private readonly tenants: TenantsRepository,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.box = new SecretBox(settings.encryptionKey);
  }

  async setKey(tenantId: string, provider: OwnKeyProvider, apiKey: string): Promise<void> {
    if (!apiKey.trim()) throw new ValidationError('api_key must not be empty');
    const updated = await this.tenants.setOwnLlmKey(tenantId, provider, this.box.seal(apiKey.trim(), tenantId));
    if (!updated) throw new NotFoundError('No such tenant.');
  }

  /**
   * The context model calls of this tenant's request run under, with its own key if it pays.
   * `options.tenant`: the tenant's row if the caller already read it in this request (an API
   * key's principal carries it), so it is not read twice.
   */
  async callContext(
    tenantId: string,
    requestId: string,
    kind: InferenceKind,
    documentId?: number,
    options: { spendLimited?: boolean; tenant?: TenantRow; signal?: AbortSignal } = {},
  ): Promise<CallContext> {
    const limited = options.spendLimited ?? true;
    const tenant = options.tenant?.id === tenantId ? options.tenant : await this.tenants.findById(tenantId);
    if (!tenant) throw new NotFoundError('No such tenant.');
    if (tenant.billing !== 'own_key') return new CallContext(tenantId, requestId, kind, undefined, documentId, limited, options.signal);
    const ownKeys =
      tenant.ownLlmProvider && tenant.ownLlmKeyEncrypted
        ? { [tenant.ownLlmProvider]: this.box.open(tenant.ownLlmKeyEncrypted, tenantId) }
        : {};
    return new CallContext(tenantId, requestId, kind, ownKeys, documentId, limited, options.signal);
  }
}
