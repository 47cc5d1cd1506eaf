# Appended to the conf.py that `antsibull-docs sphinx-init` writes (`make docs`, mk/packaging.mk).

# The build downloads nothing: intersphinx reads only the inventory that intersphinx.py wrote next
# to conf.py from the installed collections; the links still point to the Ansible docsite.
intersphinx_mapping = {
    "ansible_devel": ("https://docs.ansible.com/projects/ansible/devel/", "../ansible_devel.inv"),
}

# sphinx_ansible_theme's top bar links to the Ansible project's blog and forum by default.
html_theme_options = {
    "topbar_links": {
        "Ansible documentation": "https://docs.ansible.com/",
    },
}
