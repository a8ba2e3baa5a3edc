import { z } from 'zod';
import { named } from '@loci/http';
import { userResponse } from '../admin/admin.dto';

/** A change to a tenant's user; a field left out stays as it is. */
export const updateUserBody = z
  .strictObject({
    role: z.enum(['admin', 'member']).optional(),
    /** true: no sign-in and every token ends now; false: may sign in again (old tokens stay dead). */
    disabled: z.boolean().optional(),
  })
  .refine((body) => body.role !== undefined || body.disabled !== undefined, 'name role or disabled');

export const userListResponse = z.object({
  items: z.array(userResponse),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const deletedUserResponse = z.object({
  id: z.uuid(),
  /** The API keys the user had created, revoked with the user (a departed person's keys end). */
  revoked_api_key_ids: z.array(z.uuid()),
});

export const changePasswordBody = z.strictObject({
  current_password: z.string().min(1).max(1024),
  new_password: z.string().min(12, 'must be at least 12 characters').max(1024),
});

// OpenAPI component names: the types of the generated client (packages/client).
named('UpdateUserRequest', updateUserBody);
named('UserList', userListResponse);
named('DeletedUser', deletedUserResponse);
named('ChangePasswordRequest', changePasswordBody);
