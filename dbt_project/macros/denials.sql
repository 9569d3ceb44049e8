{#- Fully denied: an adjudication that paid nothing and denied all the charges, whether the payer said
    so with CLP02=4 or denied every line under CLP02=1/2/3 (a payer-denied total, the claim's positive
    payer-denial amounts at claim and line level, of at least the charge). Reversals (CLP02=22) and
    predeterminations (CLP02=25) are not decisions. Written once: int_remittance_claims_summarised
    flags every CLP with it, and fct_service_lines applies it to the claims a claim-level term would
    price (so the service lines need not wait for the summarised claims). -#}
{% macro is_fully_denied(status_code, paid_amount, billed_amount, payer_denied_amount) -%}
    (
        {{ status_code }} not in ('22', '25')
        and {{ paid_amount }} = 0
        and (
            {{ status_code }} = '4'
            or ({{ billed_amount }} > 0 and {{ payer_denied_amount }} >= {{ billed_amount }})
        )
    )
{%- endmacro %}

{#- A claim's outcome: overturned when some payer overturned its own denial, else the current decision
    of the last payer in the COB chain (denied in full, partially denied or paid). Written once for
    the two paths of int_claims_latest_status (claims with one payer, claims with several). -#}
{% macro claim_outcome(any_overturned, current_is_fully_denied, current_is_denied) -%}
    case
        when {{ any_overturned }} then 'overturned'
        when {{ current_is_fully_denied }} then 'denied'
        when {{ current_is_denied }} then 'partially_denied'
        else 'paid'
    end
{%- endmacro %}
