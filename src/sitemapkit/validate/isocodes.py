"""The ISO code lists the extension rules check against, kept here as compact strings.

The schemas only check the shape (two or three capital letters); a sitemap that restricts a
video to ``UK`` or prices it in ``HRK`` passes them and means nothing. The lists are written
out rather than taken from a package so that ``import sitemapkit`` needs nothing more.

* ISO 3166-1 alpha-2: the 249 officially assigned codes (user-assigned, reserved and
  withdrawn codes such as ``UK``, ``EU``, ``XK`` or ``AN`` are not in it).
* ISO 4217: the codes of the current List One, funds and metals included; withdrawn codes
  (``HRK`` 2023, ``SLL`` 2024, ``ZWL`` 2024, ``ANG`` 2025, ...) are not in it.
"""

from __future__ import annotations

from typing import Final

__all__ = ["COUNTRY_CODES", "CURRENCY_CODES"]

_COUNTRIES: Final = """
    AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ
    BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ
    CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ
    DE DJ DK DM DO DZ
    EC EE EG EH ER ES ET
    FI FJ FK FM FO FR
    GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY
    HK HM HN HR HT HU
    ID IE IL IM IN IO IQ IR IS IT
    JE JM JO JP
    KE KG KH KI KM KN KP KR KW KY KZ
    LA LB LC LI LK LR LS LT LU LV LY
    MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ
    NA NC NE NF NG NI NL NO NP NR NU NZ
    OM
    PA PE PF PG PH PK PL PM PN PR PS PT PW PY
    QA
    RE RO RS RU RW
    SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ
    TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ
    UA UG UM US UY UZ
    VA VC VE VG VI VN VU
    WF WS
    YE YT
    ZA ZM ZW
"""

_CURRENCIES: Final = """
    AED AFN ALL AMD AOA ARS AUD AWG AZN
    BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD
    CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK
    DJF DKK DOP DZD
    EGP ERN ETB EUR
    FJD FKP
    GBP GEL GHS GIP GMD GNF GTQ GYD
    HKD HNL HTG HUF
    IDR ILS INR IQD IRR ISK
    JMD JOD JPY
    KES KGS KHR KMF KPW KRW KWD KYD KZT
    LAK LBP LKR LRD LSL LYD
    MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN
    NAD NGN NIO NOK NPR NZD
    OMR
    PAB PEN PGK PHP PKR PLN PYG
    QAR
    RON RSD RUB RWF
    SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL
    THB TJS TMT TND TOP TRY TTD TWD TZS
    UAH UGX USD USN UYI UYU UYW UZS
    VED VES VND VUV
    WST
    XAD XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX
    YER
    ZAR ZMW ZWG
"""

#: ISO 3166-1 alpha-2.
COUNTRY_CODES: Final = frozenset(_COUNTRIES.split())
#: ISO 4217, current.
CURRENCY_CODES: Final = frozenset(_CURRENCIES.split())
