import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiSecurity, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiKeyAllowed, CurrentPrincipal, Principal } from '@loci/auth';
import { openApiSchemaOf, named } from '@loci/http';

const principalResponse = z.object({
  kind: z.enum(['jwt', 'api_key']),
  tenant_id: z.uuid().nullable(),
  user_id: z.uuid().nullable(),
  key_id: z.uuid().nullable(),
  role: z.enum(['operator', 'admin', 'member']).nullable(),
});

// OpenAPI component names: the types of the generated client (packages/client).
named('Principal', principalResponse);

/** Who am I: lets a client check its credentials (JWT or API key) and see its tenant. */
@ApiTags('auth')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
@Controller('v1/me')
export class MeController {
  @Get()
  @ApiOperation({
    summary: 'Who am I',
    description:
      'The caller as the server sees it: credential kind, tenant, user or key, role. Lets a client check its credentials.',
  })
  @ApiKeyAllowed({ scope: null })
  @ApiOkResponse({ schema: openApiSchemaOf(principalResponse, 'output') })
  whoAmI(@CurrentPrincipal() principal: Principal): z.infer<typeof principalResponse> {
    return {
      kind: principal.kind,
      tenant_id: principal.tenantId,
      user_id: principal.kind === 'jwt' ? principal.userId : null,
      key_id: principal.kind === 'api_key' ? principal.keyId : null,
      role: principal.role,
    };
  }
}
