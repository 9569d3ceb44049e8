"""fhirSmartContracts: SMART Backend Services client registrations, their token exchange and the FHIR R4 read API."""
