import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { z } from 'zod';
import { LoginService, Public } from '@loci/auth';
import { openApiSchemaOf, plainName, ValidBody } from '@loci/http';

const loginBody = z.strictObject({
  email: plainName(z.string().min(1).max(320)),
  password: z.string().min(1).max(1024),
});

export const accessTokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().describe('Seconds until the token expires.'),
});

@ApiTags('auth')
@Controller('v1/auth')
export class AuthController {
  constructor(private readonly login: LoginService) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiOkResponse({ schema: openApiSchemaOf(accessTokenResponse, 'output') })
  @ApiUnauthorizedResponse({ description: 'Wrong email or password (the same answer for both).' })
  signIn(@ValidBody(loginBody) body: z.output<typeof loginBody>) {
    return this.login.login(body.email, body.password);
  }
}
