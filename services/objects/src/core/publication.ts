/** The id of the publication: the area at the root of the tree, created with every store. */
export const PUBLICATION_ID = 1
