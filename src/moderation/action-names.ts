/** The actions a moderator takes on a comment (the contract's moderation table). */
export const MODERATION_ACTIONS = ['approve', 'remove', 'spam', 'shadow_ban', 'unhide'] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];
