import { ErrorBody } from '@content/api-schema'

/** The keys of the error body of decisions §2, from the one schema the gateway's error bodies use. */
export const ERROR_KEYS = Object.keys(ErrorBody.properties.error.properties).sort()
