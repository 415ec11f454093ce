/** The one file of a media object, as the objects service describes it (decisions §12). */
export interface MediaFile {
  key: string
  name: string
  mime_type: string
  size: number
  /** as displayed (EXIF orientation applied); 0 when unknown */
  width: number
  height: number
}

/** An object as far as media are concerned. */
export interface MediaObject {
  id: number
  object_type: string
  file: MediaFile | null
  free_access: boolean
}

/** The object a poster is asked for, and the first visible images related to it as `poster` and `attach`. */
export interface MediaSubject {
  object: MediaObject
  poster: MediaObject | null
  attached: MediaObject | null
}

export interface Size {
  width: number
  height: number
}

/** A content key: the lower-case hex SHA-256 of the bytes. */
export const isContentKey = (value: string): boolean => /^[0-9a-f]{64}$/.test(value)

/** Per-call context carried to other services. */
export interface CallContext {
  requestId?: string
  /** the access token of the user the call acts for */
  userToken?: string
}
