/** The two enumerations of the catalog, exactly as the spec lists them, in its order. */

/** `gisPlatformVersion`: the message version reported by GetMessageVersion. */
export const PLATFORM_VERSIONS = [
  'gisPlatformVersion83',
  'gisPlatformVersion90',
  'gisPlatformVersion92',
  'gisPlatformVersion93',
  'gisPlatformVersion10',
  'gisPlatformVersion101',
  'gisPlatformVersion103',
  'gisPlatformVersion104',
  'gisPlatformVersion105',
  'gisPlatformVersion106',
  'gisPlatformVersion107',
] as const

/** `gisServiceCatalogMessageFormat`: the message formats reported by GetMessageFormats. */
export const MESSAGE_FORMATS = [
  'gisServiceCatalogMessageFormatSoap',
  'gisServiceCatalogMessageFormatBin',
  'gisServiceCatalogMessageFormatSoapOrBin',
] as const

export type PlatformVersion = (typeof PLATFORM_VERSIONS)[number]
export type MessageFormat = (typeof MESSAGE_FORMATS)[number]
