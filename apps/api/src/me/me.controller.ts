import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiSecurity, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiKeyAllowed, CurrentPrincipal, Principal } from '@loci/auth';
import { ForbiddenError } from '@loci/common';
import { TenantsRepository, UsersRepository } from '@loci/db';
import { openApiSchemaOf, named } from '@loci/http';

const principalResponse = z.object({
  kind: z.enum(['jwt', 'api_key']),
  tenant_id: z.uuid().nullable(),
  user_id: z.uuid().nullable(),
  key_id: z.uuid().nullable(),
  role: z.enum(['operator', 'admin', 'member']).nullable(),
  /** The signed-in user's email; null for an API key. */
  email: z.string().nullable(),
  /** The caller's tenant's name; null for an operator. */
  tenant_name: z.string().nullable(),
});

// OpenAPI component names: the types of the generated client (packages/client).
named('Principal', principalResponse);

/** Who am I: lets a client check its credentials (JWT or API key) and see its tenant (the console's header). */
@ApiTags('auth')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
@Controller('v1/me')
export class MeController {
  constructor(
    private readonly users: UsersRepository,
    private readonly tenants: TenantsRepository,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Who am I',
    description:
      "The caller as the server sees it: credential kind, tenant (id and name), user (id and email) or key, role. Lets a client check its credentials and show who is signed in.",
  })
  @ApiKeyAllowed({ scope: null })
  @ApiOkResponse({ schema: openApiSchemaOf(principalResponse, 'output') })
  async whoAmI(@CurrentPrincipal() principal: Principal): Promise<z.infer<typeof principalResponse>> {
    // Unreachable today (MCP tokens are accepted on /mcp only); said so the types need no other kind.
    if (principal.kind === 'oauth') throw new ForbiddenError('This token is for the MCP server (/mcp) only.');
    const who =
      principal.kind === 'jwt'
        ? await this.users.identity(principal.userId)
        : { email: null, tenantName: (principal.tenant ?? (await this.tenants.findById(principal.tenantId)))?.name ?? null };
    return {
      kind: principal.kind,
      tenant_id: principal.tenantId,
      user_id: principal.kind === 'jwt' ? principal.userId : null,
      key_id: principal.kind === 'api_key' ? principal.keyId : null,
      role: principal.role,
      email: who?.email ?? null,
      tenant_name: who?.tenantName ?? null,
    };
  }
}
