"""Appeal packets: the letter from a versioned template, the evidence in order, the payer's cover form, the PDF, and the packet's events with the payer."""
