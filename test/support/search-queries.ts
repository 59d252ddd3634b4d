/** Queries a model writes to mcp_search: a few words, some naming a tool outright (bench section 18 times them). */
export const MODEL_QUERIES: readonly string[] = [
  'create invoice',
  'delete customer billing',
  'list tickets',
  'sync repository branch',
  'export report analytics',
  'approve payment',
  'search messages in chat',
  'count alerts monitoring',
  'crm_update_contact',
  'archive document storage',
];
