import { DynamicModule, Global, Module } from '@nestjs/common';
import { loadSettings, Settings, SETTINGS } from './settings';

@Global()
@Module({})
export class ConfigModule {
  /** `settings` lets tests and CLIs pass already-built settings; the server reads process.env. */
  static forRoot(settings?: Settings): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: SETTINGS, useFactory: () => settings ?? loadSettings() }],
      exports: [SETTINGS],
    };
  }
}
