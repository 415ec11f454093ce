import { endpointListing } from '../../routing/listing.js'
import { ok, type Handler } from '../context.js'
import { envelope } from '../envelope.js'

/** `GET {base}/`: every endpoint of the configuration in force, with its URL. */
export const listing: Handler = async (ctx, deps) => ok(envelope(ctx.info, '', endpointListing(deps.table, ctx.info.origin)))
