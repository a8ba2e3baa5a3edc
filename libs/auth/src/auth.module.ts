import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { Settings, SETTINGS } from '@loci/config';
import { AccessTokenIssuer } from './access-token-issuer';
import { ApiKeyStrategy } from './api-key.strategy';
import { ApiKeysService } from './api-keys.service';
import { PrincipalGuard } from './auth.guard';
import { JwtStrategy } from './jwt.strategy';
import { LoginService } from './login.service';
import { LoginThrottleService } from './login-throttle.service';
import { PasswordChangeService } from './password-change.service';
import { TenantStatus } from './tenant-status';
import { TenantStatusGuard } from './tenant-status.guard';

/** Registers the default-deny guard for the whole app, the two strategies and the services. */
@Module({
  imports: [
    PassportModule,
    JwtModule.registerAsync({
      inject: [SETTINGS],
      useFactory: (settings: Settings) => ({ secret: settings.jwt.secret }),
    }),
  ],
  providers: [
    JwtStrategy,
    ApiKeyStrategy,
    AccessTokenIssuer,
    LoginService,
    LoginThrottleService,
    PasswordChangeService,
    ApiKeysService,
    TenantStatus,
    { provide: APP_GUARD, useClass: PrincipalGuard },
    // After PrincipalGuard (global guards run in registration order): it needs the principal.
    { provide: APP_GUARD, useClass: TenantStatusGuard },
  ],
  exports: [LoginService, LoginThrottleService, PasswordChangeService, ApiKeysService, TenantStatus],
})
export class AuthModule {}
