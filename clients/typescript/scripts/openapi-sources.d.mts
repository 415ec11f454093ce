export declare const TYPES_FILE: URL
export declare function openapiDocument (): Record<string, unknown>
export declare function openapiTypes (document?: Record<string, unknown>): Promise<string>
