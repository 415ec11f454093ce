import type { CustomEndpointModule } from './custom-endpoint.js'

/** Example custom endpoint: answers what it was asked, for every method. */
export const echoEndpoint: CustomEndpointModule = {
  name: 'echo',
  all: (req) => ({
    method: req.method.toLowerCase(),
    segments: req.segments,
    query: Object.fromEntries([...req.query].filter(([key]) => key !== 'access_token')),
    body: req.body ?? null,
    caller: { user_id: req.caller.user_id, groups: req.caller.groups },
  }),
}
