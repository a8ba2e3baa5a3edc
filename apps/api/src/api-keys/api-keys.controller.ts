import { Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiKeysService, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { ApiErrors, openApiSchemaOf, ValidBody } from '@loci/http';
import {
  apiKeyListResponse,
  apiKeyResponse,
  createApiKeyBody,
  createdApiKeyResponse,
  toApiKeyResponse,
  updateApiKeyBody,
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
  @ApiOperation({
    summary: "List the tenant's API keys",
    description:
      "The caller's tenant's keys: name, prefix, scopes, expiry, last use, revoked. Never a secret.",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(apiKeyListResponse, 'output') })
  async list(@CurrentPrincipal() principal: Principal) {
    const keys = await this.apiKeys.list(tenantIdOf(principal));
    return { items: keys.map(toApiKeyResponse) };
  }

  @Post()
  @ApiOperation({
    summary: 'Create an API key',
    description:
      'Creates a key with its scopes (`read`, `write`) and optional expiry. The secret is in this response only.',
  })
  @ApiCreatedResponse({ schema: openApiSchemaOf(createdApiKeyResponse, 'output') })
  async create(@CurrentPrincipal() principal: Principal, @ValidBody(createApiKeyBody) body: z.output<typeof createApiKeyBody>) {
    const userId = principal.kind === 'jwt' ? principal.userId : null;
    const created = await this.apiKeys.create(tenantIdOf(principal), body.name, userId, {
      scopes: body.scopes,
      expiresAt: body.expires_at,
      requestsPerMinute: body.requests_per_minute,
    });
    return { ...toApiKeyResponse(created.row), key: created.key };
  }

  @Patch(':keyId')
  @ApiOperation({
    summary: 'Rename an API key or set its own rate',
    description:
      "`name` and `requests_per_minute` (the key's own rate within the tenant's; null: the tenant's alone); a field left out stays as it is. From the key's next request on. A revoked key is not changed (409).",
  })
  @ApiErrors({ 404: 'No such key in this tenant.', 409: 'The key is revoked.' })
  @ApiOkResponse({ schema: openApiSchemaOf(apiKeyResponse, 'output') })
  async update(@CurrentPrincipal() principal: Principal, @Param('keyId') keyId: string, @ValidBody(updateApiKeyBody) body: z.output<typeof updateApiKeyBody>) {
    return toApiKeyResponse(await this.apiKeys.update(tenantIdOf(principal), keyId, { name: body.name, requestsPerMinute: body.requests_per_minute }));
  }

  @Delete(':keyId')
  @ApiOperation({
    summary: 'Revoke an API key',
    description:
      'The key is refused from the next request on.',
  })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked; the key fails from the next request on.' })
  async revoke(@CurrentPrincipal() principal: Principal, @Param('keyId') keyId: string) {
    await this.apiKeys.revoke(tenantIdOf(principal), keyId);
  }
}
