import type { UserRow } from '../store/repos/users.ts';
import { isoTime } from './time.ts';

/** A member of the account's team as the owners' dashboard shows it (never the password hash). */
export interface Teammate {
  id: string;
  email: string;
  name: string;
  role: 'owner' | 'member';
  disabled: boolean;
  createdAt: string;
}

export function presentTeammate(u: UserRow): Teammate {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    disabled: u.disabled_at !== null,
    createdAt: isoTime(u.created_at),
  };
}
