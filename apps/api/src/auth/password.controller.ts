import { Controller, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiOkResponse, ApiTags, ApiTooManyRequestsResponse, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { CurrentPrincipal, PasswordChangeService, Principal } from '@loci/auth';
import { ForbiddenError } from '@loci/common';
import { openApiSchemaOf, ValidBody } from '@loci/http';
import { changePasswordBody } from '../users/users.dto';
import { accessTokenResponse } from './auth.controller';

/** Any signed-in user changes their own password (JWT only: an API key has no password). */
@ApiTags('auth')
@ApiBearerAuth('jwt')
@Controller('v1/auth')
export class PasswordController {
  constructor(private readonly passwords: PasswordChangeService) {}

  @Post('password')
  @ApiOperation({
    summary: 'Change your password',
    description:
      'The signed-in user (JWT) changes their own password with the current one. Every token issued before is refused from then on; the response is a fresh token.',
  })
  @HttpCode(200)
  @ApiOkResponse({
    description: 'Changed. Every token issued before is refused from now on; this is a fresh one.',
    schema: openApiSchemaOf(accessTokenResponse, 'output'),
  })
  @ApiForbiddenResponse({ description: 'The current password is wrong.' })
  @ApiTooManyRequestsResponse({ description: 'Too many wrong passwords for this account or from this client, here or at login (`too_many_login_attempts`, Retry-After).' })
  change(
    @CurrentPrincipal() principal: Principal,
    @ValidBody(changePasswordBody) body: z.output<typeof changePasswordBody>,
    @Ip() clientAddress: string | undefined,
  ) {
    if (principal.kind !== 'jwt') throw new ForbiddenError('Sign in to change a password.');
    return this.passwords.change(principal.userId, body.current_password, body.new_password, clientAddress);
  }
}
