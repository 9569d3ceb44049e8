"""revenueInvalidation: revenue that turned out not to be collectable (final denial write-offs, lost and written-off cases), and why."""
