import { Controller, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags, ApiTooManyRequestsResponse, ApiUnauthorizedResponse, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { LoginThrottleService, Public } from '@loci/auth';
import { openApiSchemaOf, plainName, ValidBody, named } from '@loci/http';

const loginBody = z.strictObject({
  email: plainName(z.string().min(1).max(320)),
  password: z.string().min(1).max(1024),
});

export const accessTokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().describe('Seconds until the token expires.'),
});

// OpenAPI component names: the types of the generated client (packages/client).
named('LoginRequest', loginBody);
named('AccessToken', accessTokenResponse);

@ApiTags('auth')
@Controller('v1/auth')
export class AuthController {
  constructor(private readonly login: LoginThrottleService) {}

  @Public()
  @Post('login')
  @ApiOperation({
    summary: 'Sign in',
    description:
      'Exchanges an email and password for a JWT (Authorization: Bearer) for the dashboard routes. Failed attempts are throttled per email and per client address.',
  })
  @HttpCode(200)
  @ApiOkResponse({ schema: openApiSchemaOf(accessTokenResponse, 'output') })
  @ApiUnauthorizedResponse({ description: 'Wrong email or password (the same answer for both).' })
  @ApiTooManyRequestsResponse({
    description:
      'Too many failed logins for this email or from this client (`too_many_login_attempts`, Retry-After); ' +
      'while locked, even the right password is refused, and the answer is the same whether or not the email has an account.',
  })
  @ApiServiceUnavailableResponse({ description: 'The login throttle cannot be checked (`limits_unavailable`, Retry-After).' })
  signIn(@ValidBody(loginBody) body: z.output<typeof loginBody>, @Ip() clientAddress: string | undefined) {
    return this.login.login(body.email, body.password, clientAddress);
  }
}
