import { Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { openApiSchemaOf, ValidBody, ValidQuery, ApiErrors } from '@loci/http';
import { createUserBody, pageQuery, toUserResponse, userResponse } from '../admin/admin.dto';
import { tenantIdOf } from '../tenant-scope';
import { deletedUserResponse, updateUserBody, userListResponse } from './users.dto';
import { TenantUsersService } from './tenant-users.service';

const LAST_ADMIN = "Refused: the change would leave the tenant without an active admin.";

/** Tenant self-service: a tenant admin manages the tenant's own users. */
@ApiTags('users')
@ApiBearerAuth('jwt')
@Roles('admin')
@Controller('v1/users')
export class UsersController {
  constructor(private readonly users: TenantUsersService) {}

  @Get()
  @ApiOperation({
    summary: "List the tenant's users",
    description:
      "A page of the caller's tenant's users (`limit`, `offset`).",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(userListResponse, 'output') })
  async list(@CurrentPrincipal() principal: Principal, @ValidQuery(pageQuery) page: z.output<typeof pageQuery>) {
    const users = await this.users.list(tenantIdOf(principal), page);
    return { items: users.map(toUserResponse), limit: page.limit, offset: page.offset };
  }

  @Post()
  @ApiOperation({
    summary: 'Create a user',
    description:
      "Creates an admin or member of the caller's tenant with a password.",
  })
  @ApiErrors({ 409: 'A user with this email exists.' })
  @ApiCreatedResponse({ schema: openApiSchemaOf(userResponse, 'output') })
  async create(@CurrentPrincipal() principal: Principal, @ValidBody(createUserBody) body: z.output<typeof createUserBody>) {
    return toUserResponse(await this.users.create(tenantIdOf(principal), body));
  }

  @Patch(':userId')
  @ApiOperation({
    summary: 'Change a user',
    description:
      'Changes role, disabled state or password; a disabled user or a new password ends every token the user holds. The last active admin cannot be demoted or disabled.',
  })
  @ApiOkResponse({ schema: openApiSchemaOf(userResponse, 'output') })
  @ApiConflictResponse({ description: LAST_ADMIN })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('userId') userId: string,
    @ValidBody(updateUserBody) body: z.output<typeof updateUserBody>,
  ) {
    return toUserResponse(await this.users.update(tenantIdOf(principal), userId, body));
  }

  @Delete(':userId')
  @ApiOperation({
    summary: 'Delete a user',
    description:
      'Deletes the user and revokes the API keys the user created. The last active admin cannot be deleted.',
  })
  @ApiOkResponse({ schema: openApiSchemaOf(deletedUserResponse, 'output') })
  @ApiConflictResponse({ description: LAST_ADMIN })
  async delete(@CurrentPrincipal() principal: Principal, @Param('userId') userId: string): Promise<z.infer<typeof deletedUserResponse>> {
    return { id: userId, revoked_api_key_ids: await this.users.delete(tenantIdOf(principal), userId) };
  }
}
