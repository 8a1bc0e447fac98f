/**
 * ISO 4217 alpha-3 codes of the currencies in circulation (list 1 of the ISO 4217 maintenance agency), without
 * the fund codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW), precious metals, SDR, bond-market units and the
 * test and "no currency" codes (XTS, XXX): nobody is charged in those.
 */
export const ISO_4217_CURRENCIES: ReadonlySet<string> = new Set(
  (
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF ' +
    'CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD ' +
    'HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD ' +
    'MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN ' +
    'PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY ' +
    'TTD TWD TZS UAH UGX USD UYU UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG'
  ).split(' '),
);

/** True for an ISO 4217 alpha-3 code of a currency in circulation (upper case, as the standard writes it). */
export function isIso4217Currency(code: string): boolean {
  return ISO_4217_CURRENCIES.has(code);
}
