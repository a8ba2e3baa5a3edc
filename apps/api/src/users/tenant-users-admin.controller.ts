import { Controller, Delete, Get, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiConflictResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { Roles } from '@loci/auth';
import { openApiSchemaOf, ValidBody, ValidQuery } from '@loci/http';
import { pageQuery, toUserResponse, userResponse } from '../admin/admin.dto';
import { deletedUserResponse, updateUserBody, userListResponse } from './users.dto';
import { TenantUsersService } from './tenant-users.service';

const LAST_ADMIN = "Refused: the change would leave the tenant without an active admin.";

/**
 * Operators manage any tenant's users (creating one is `POST /v1/admin/tenants/{tenantId}/users`,
 * beside the tenant's other admin routes); the same rules as the tenant's own admins.
 */
@ApiTags('admin')
@ApiBearerAuth('jwt')
@Roles('operator')
@Controller('v1/admin/tenants/:tenantId/users')
export class TenantUsersAdminController {
  constructor(private readonly users: TenantUsersService) {}

  @Get()
  @ApiOperation({
    summary: "List a tenant's users",
    description:
      "A page of the tenant's users (`limit`, `offset`).",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(userListResponse, 'output') })
  async list(@Param('tenantId') tenantId: string, @ValidQuery(pageQuery) page: z.output<typeof pageQuery>) {
    const users = await this.users.list(tenantId, page);
    return { items: users.map(toUserResponse), limit: page.limit, offset: page.offset };
  }

  @Patch(':userId')
  @ApiOperation({
    summary: "Change a tenant's user",
    description:
      'Changes role, disabled state or password; a disabled user or a new password ends every token the user holds. The last active admin cannot be demoted or disabled.',
  })
  @ApiOkResponse({ schema: openApiSchemaOf(userResponse, 'output') })
  @ApiConflictResponse({ description: LAST_ADMIN })
  async update(
    @Param('tenantId') tenantId: string,
    @Param('userId') userId: string,
    @ValidBody(updateUserBody) body: z.output<typeof updateUserBody>,
  ) {
    return toUserResponse(await this.users.update(tenantId, userId, body));
  }

  @Delete(':userId')
  @ApiOperation({
    summary: "Delete a tenant's user",
    description:
      'Deletes the user and revokes the API keys the user created. The last active admin cannot be deleted.',
  })
  @ApiOkResponse({ schema: openApiSchemaOf(deletedUserResponse, 'output') })
  @ApiConflictResponse({ description: LAST_ADMIN })
  async delete(@Param('tenantId') tenantId: string, @Param('userId') userId: string): Promise<z.infer<typeof deletedUserResponse>> {
    return { id: userId, revoked_api_key_ids: await this.users.delete(tenantId, userId) };
  }
}
