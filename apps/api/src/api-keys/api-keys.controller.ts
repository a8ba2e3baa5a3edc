import { Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiKeysService, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { openApiSchemaOf, ValidBody } from '@loci/http';
import {
  apiKeyListResponse,
  createApiKeyBody,
  createdApiKeyResponse,
  toApiKeyResponse,
} from '../admin/admin.dto';
import { tenantIdOf } from '../tenant-scope';

/** Tenant self-service: a tenant admin manages the tenant's own API keys. */
@ApiTags('api-keys')
@ApiBearerAuth('jwt')
@Roles('admin')
@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Get()
  @ApiOkResponse({ schema: openApiSchemaOf(apiKeyListResponse, 'output') })
  async list(@CurrentPrincipal() principal: Principal) {
    const keys = await this.apiKeys.list(tenantIdOf(principal));
    return { items: keys.map(toApiKeyResponse) };
  }

  @Post()
  @ApiCreatedResponse({ schema: openApiSchemaOf(createdApiKeyResponse, 'output') })
  async create(@CurrentPrincipal() principal: Principal, @ValidBody(createApiKeyBody) body: z.output<typeof createApiKeyBody>) {
    const userId = principal.kind === 'jwt' ? principal.userId : null;
    const created = await this.apiKeys.create(tenantIdOf(principal), body.name, userId, { scopes: body.scopes, expiresAt: body.expires_at });
    return { ...toApiKeyResponse(created.row), key: created.key };
  }

  @Delete(':keyId')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked; the key fails from the next request on.' })
  async revoke(@CurrentPrincipal() principal: Principal, @Param('keyId') keyId: string) {
    await this.apiKeys.revoke(tenantIdOf(principal), keyId);
  }
}
